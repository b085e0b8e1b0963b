"""triton.compiler.compiler of Triton 3.3 and later: there, with no AttrsDescriptor."""
