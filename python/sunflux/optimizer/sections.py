"""The section classes of the optimizer scenario, built at import from the schema
(``data/optimizer/sections.json``, embedded in the Rust core and read through ``_fields``).

One class per section (``PV``, ``ElectricLoad``, ...) with a ``Field`` per field; docstrings and
``__init__`` signatures come from the schema's ``docs`` and field table, so ``help()``,
``inspect.signature`` and the reference show each field's type and its real default (the value an
unset field reads as: the schema's default, or None), and each class's docstring has a numpydoc
``Parameters`` entry per field (type, default, unit, range), joined on first read. Static types
live in ``sections.pyi``; the generator writes it with the schema.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

from sunflux.optimizer import _helpers
from sunflux.optimizer._base import Field, Record, Section
from sunflux.optimizer._fields import DOCS, SECTIONS, TOP_LEVEL_STRINGS

__all__ = [*SECTIONS, "SECTION_CLASSES"]


def _init(attrs: dict[str, tuple[str, Any]]) -> Callable[..., None]:
    """A keyword-only ``__init__`` whose signature names each field with its write type and the
    value it reads as when not given (the signature documents; ``__init__`` stores only what is given)."""

    def __init__(self: Record, **values: Any) -> None:
        Record.__init__(self, **values)

    keyword = inspect.Parameter.KEYWORD_ONLY
    __init__.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(attr, keyword, default=default, annotation=kind)
           for attr, (kind, default) in attrs.items()],
        return_annotation=None,
    )
    return __init__


class _SectionDoc:
    """The docstring of a section class: its description, then a numpydoc ``Parameters`` entry per
    field (its ``name : type, default`` line and its description with unit and range, all from the
    schema's ``docs``), joined on first read so that importing the classes does not pay for it."""

    def __init__(self, key: str) -> None:
        self._key = key
        self._text: str | None = None

    def __get__(self, instance: object, owner: type | None = None) -> str:
        if self._text is None:
            docs = DOCS[self._key]
            lines = [docs["text"], "", "Parameters", "----------"]
            for name, field in docs["fields"].items():
                lines.append(f"{name} : {field['parameter']}")
                lines += [f"    {line}" if line else "" for line in field["text"].split("\n")]
            self._text = "\n".join(lines)
        return self._text


def _build(name: str, base: type[Record], doc: str | _SectionDoc, fields: dict[str, tuple[str, str, Any, str]]) -> Any:
    """A record class with one ``Field`` per ``attr: (key, write type, default, docstring)``."""
    namespace: dict[str, Any] = {"__doc__": doc, "__module__": __name__, "__qualname__": name}
    for attr, (key, _, _, text) in fields.items():
        namespace[attr] = Field(key)
        namespace[attr].__doc__ = text
    namespace["__init__"] = _init({attr: (kind, default) for attr, (_, kind, default, _) in fields.items()})
    if issubclass(base, Section):
        namespace["_key"] = name
    return type(name, (base,), namespace)


SECTION_CLASSES: dict[str, type[Section]] = {
    key: _build(
        key, getattr(_helpers, f"{key}Helpers", Section), _SectionDoc(key),
        {name: (name, DOCS[key]["fields"][name]["write"], field.get("default"), DOCS[key]["fields"][name]["text"])
         for name, field in section["fields"].items()},
    )
    for key, section in SECTIONS.items()
}
globals().update(SECTION_CLASSES)


def _slot_type(key: str) -> str:
    return f"{key} | Sequence[{key}] | None" if SECTIONS[key]["many"] else f"{key} | None"


ScenarioSections = _build(
    "ScenarioSections", Record,
    "The typed section slots of a scenario (base class of ``Scenario``).\n\nEach attribute holds "
    "a section object, or None when the section is not set; ``pv`` may also hold a list of arrays.",
    {**{section["attr"]: (key, _slot_type(key), None, f"Section ``{key}``: {section['doc']}")
        for key, section in SECTIONS.items()},
     **{name: (name, "str | None", None, f"The scenario's top-level ``{name}`` string.") for name in TOP_LEVEL_STRINGS}},
)
