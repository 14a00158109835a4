# Django ships no types and cupboard does not use django-stubs (its plugin needs the settings
# loaded and reports a different set of errors). Only this is typed: a member of a choices class
# (`Submission.Status.SCORED`) is a str (or int) enum member, not the tuple written in its body;
# everything else in `django` is Any, as if it were missing (../../__init__.pyi).
import enum
from typing import Any

class ChoicesType(enum.EnumMeta):
    @property
    def choices(cls) -> list[tuple[Any, str]]: ...
    @property
    def values(cls) -> list[Any]: ...
    @property
    def labels(cls) -> list[str]: ...
    @property
    def names(cls) -> list[str]: ...

class Choices(enum.Enum, metaclass=ChoicesType):  # type: ignore[misc]  # members are declared by subclasses
    @property
    def label(self) -> str: ...

class IntegerChoices(int, Choices): ...  # type: ignore[misc]

class TextChoices(str, Choices):  # type: ignore[misc]
    @property
    def value(self) -> str: ...
