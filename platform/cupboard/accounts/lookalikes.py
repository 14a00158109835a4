"""Names that look alike compare equal: team "Okаpi" (Cyrillic а) is "Okapi", user "аlice" is "alice".

`name_key` is what names are compared by: Unicode NFKC (full-width and ligature forms become
plain letters), case folding, invisible characters dropped, accents dropped, and the Latin
look-alikes of Cyrillic and Greek letters mapped to the Latin letter. The map below is a small
hand-made subset of Unicode's confusables (UTS #39), enough for the letters a person can type
to imitate a Latin name; a name in Cyrillic or Greek only still gets a key of its own.
"""
import unicodedata

# Lower-case letters (keys are compared after case folding) whose lower- or upper-case form
# looks like a Latin letter.
_CONFUSABLES = str.maketrans({
    # Cyrillic
    "а": "a", "в": "b", "ь": "b", "с": "c", "ԁ": "d", "е": "e", "ё": "e", "һ": "h", "н": "h", "і": "i",
    "ї": "i", "ј": "j", "к": "k", "ӏ": "l", "м": "m", "о": "o", "р": "p", "ԛ": "q", "ѕ": "s", "т": "t",
    "у": "y", "ү": "y", "ԝ": "w", "х": "x", "з": "3",
    # Greek
    "α": "a", "β": "b", "ϲ": "c", "ε": "e", "η": "h", "ι": "i", "ϳ": "j", "κ": "k", "μ": "m", "ν": "v",
    "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ζ": "z",
    # Latin letters that pass for others
    "ı": "i", "ȷ": "j", "ɡ": "g", "ℓ": "l",
})


def name_key(name: str) -> str:
    """The form two names are compared in; equal keys mean the names look alike."""
    if name.isascii() and name.isprintable():
        # Most names: nothing to normalise, map or drop (sign-up compares every username).
        return " ".join(name.lower().split())
    text = unicodedata.normalize("NFKC", name).casefold()
    text = "".join(ch for ch in text if unicodedata.category(ch) not in {"Cf", "Cc"})
    text = text.translate(_CONFUSABLES)
    decomposed = unicodedata.normalize("NFD", text)
    text = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(unicodedata.normalize("NFKC", text).split())
