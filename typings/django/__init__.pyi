# Everything in Django is Any but the choices classes (db/models/enums.pyi).
from typing import Any

def __getattr__(name: str) -> Any: ...
