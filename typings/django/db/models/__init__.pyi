from typing import Any

from .enums import Choices as Choices
from .enums import IntegerChoices as IntegerChoices
from .enums import TextChoices as TextChoices

def __getattr__(name: str) -> Any: ...
