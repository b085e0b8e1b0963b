"""triton.language.extra.libdevice in the stand-in: a few of the functions ports move to."""


def tanh(x):
    return x


def pow(x, y):
    return x
