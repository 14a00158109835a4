"""Domain errors of competition set-up. Each carries a stable `code` (tests and commands
rely on it) and, when an input file or definition is at fault, the list of problems,
each naming where (a YAML key path, or file:line)."""


class CompetitionError(Exception):
    def __init__(self, code: str, message: str, *, problems: list[str] | tuple[str, ...] = ()):
        self.code = code
        self.message = message
        self.problems = tuple(problems)
        super().__init__(message if not problems else f"{message}:\n  " + "\n  ".join(self.problems))


class DefinitionError(CompetitionError):
    """A competition YAML file that cannot be loaded; `problems` name the key path of each fault."""

    def __init__(self, problems: list[str], *, code: str = "invalid-definition",
                 message: str = "the competition definition is not valid"):
        super().__init__(code, message, problems=problems)
