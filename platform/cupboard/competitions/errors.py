"""Domain errors of competition set-up. Each carries a stable `code` (tests and commands
rely on it) and, when an input file or definition is at fault, the list of problems,
each naming where: an `evaluator.records.Problem` (file, line, column) for a data file,
or a text starting with the YAML key path for a definition."""
from collections.abc import Sequence

from evaluator.records import Problem


class CompetitionError(Exception):
    def __init__(self, code: str, message: str, *, problems: "Sequence[Problem | str]" = ()):
        self.code = code
        self.message = message
        self.problems = tuple(problems)
        super().__init__(message if not problems else f"{message}:\n  " + "\n  ".join(map(str, self.problems)))

    def problem_rows(self) -> list[dict]:
        """Each problem as {file, line, column, code, message}, for pages and JSON."""
        return [p.as_dict() if isinstance(p, Problem) else
                {"file": "", "line": None, "column": None, "code": None, "message": p} for p in self.problems]


class DefinitionError(CompetitionError):
    """A competition YAML file that cannot be loaded; `problems` name the key path of each fault."""

    def __init__(self, problems: list[str], *, code: str = "invalid-definition",
                 message: str = "the competition definition is not valid"):
        super().__init__(code, message, problems=problems)
