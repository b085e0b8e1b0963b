"""Just enough of torch for a worker to start in load/run mode without a GPU."""
__version__ = "0.0+standin"


class cuda:
    @staticmethod
    def is_available():
        return False
