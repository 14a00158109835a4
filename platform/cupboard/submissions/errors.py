"""The one error submission services raise: a refusal with a code, a message, and the
per-file problems (file, line, column) when run files did not validate."""
from django.core.exceptions import ValidationError


class SubmissionRefused(ValidationError):
    """Raised before anything is written: a refused submission stores nothing and costs no quota."""

    def __init__(self, message: str, *, code: str, problems=()):
        super().__init__(message, code=code)
        self.problems = tuple(problems)

    def as_error_list(self) -> list[dict]:
        """The errors as the JSON API returns them: one entry per problem, or the refusal itself."""
        if self.problems:
            return [p.as_dict() for p in self.problems]
        return [{"file": None, "line": None, "column": None, "code": self.code, "message": self.message}]
