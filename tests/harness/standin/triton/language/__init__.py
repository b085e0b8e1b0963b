class constexpr:
    """Annotation marker, as in triton.language."""
