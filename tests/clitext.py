"""What a command printed on stderr, without the notices of compiling on a first run: whether
a test sees them depends on what the tests before it compiled, so a test that counts a
command's lines counts `messages(err)`."""
COMPILE_NOTICES = ("ludo-flow: compiling", "ludo-flow: still compiling", "ludo-flow: compiled")


def messages(err):
    """Return the non-empty lines of `err` that are not compile notices."""
    return [line for line in err.splitlines()
            if line.strip() and not line.lstrip("\r").startswith(COMPILE_NOTICES)]
