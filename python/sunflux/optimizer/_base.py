"""Machinery shared by the section classes (built from the schema) and ``Scenario``.

A record keeps exactly the values the user set (or the file held), in order, in ``_values``;
typed ``Field`` descriptors read and write them. Unset fields read as their default, which is
never written back, so ``to_dict()`` gives back only what was set. Field facts come from the
schema, through ``_fields.SECTIONS``.
"""

from __future__ import annotations

import copy
import difflib
import enum
import html
import math
from dataclasses import dataclass
from typing import (
    Any,
    ClassVar,
    Generic,
    Iterable,
    Iterator,
    Mapping,
    Protocol,
    TYPE_CHECKING,
    Self,
    Sequence,
    TypeVar,
    Union,
    overload,
)

from sunflux._units import check_optimizer_value
from sunflux.optimizer._fields import DOCS, SECTIONS

__all__ = [
    "UNSET",
    "Unset",
    "ArrayLike",
    "FloatSeries",
    "IntSeries",
    "Field",
    "FieldInfo",
    "Record",
    "Section",
    "UnknownFieldWarning",
]


class Unset(enum.Enum):
    """Marker type of a keyword argument the caller did not give.

    Attributes
    ----------
    UNSET
        The one member (also ``sunflux.optimizer.UNSET``): the argument was not given, so the
        field stays unset (passing None is a value, not this).
    """

    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"


UNSET = Unset.UNSET


class UnknownFieldWarning(UserWarning):
    """A scenario holds a key the field table does not know; it is kept and sent as is."""


class ArrayLike(Protocol):
    """Anything with a length that iterates over numbers: numpy arrays, polars/pandas Series."""

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[Any]: ...


FloatSeries = Union[Sequence[float], ArrayLike]
IntSeries = Union[Sequence[int], ArrayLike]

_Read = TypeVar("_Read")
_Write = TypeVar("_Write")


class Field(Generic[_Read, _Write]):
    """A typed attribute stored in its record's ``_values`` under ``key``.

    Reading an unset field gives its default (or None); assigning stores the value; ``del``
    makes it unset again. On the class, the attribute is the descriptor itself.
    """

    def __init__(self, key: str | None = None) -> None:
        self.key = key or ""
        self.attr = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.attr = name
        self.key = self.key or name

    @overload
    def __get__(self, instance: None, owner: type) -> Field[_Read, _Write]: ...

    @overload
    def __get__(self, instance: Record, owner: type) -> _Read: ...

    def __get__(self, instance: Record | None, owner: type) -> Any:
        if instance is None:
            return self
        return instance._get(self.key)

    def __set__(self, instance: Record, value: _Write) -> None:
        instance._set(self.key, value)

    def __delete__(self, instance: Record) -> None:
        instance._values.pop(self.key, None)


@dataclass(frozen=True)
class FieldInfo:
    """Everything the field table says about one field.

    Parameters
    ----------
    section : str
        The section's key (``"PV"``).
    name : str
        The field's name (``"max_kw"``).
    type : str
        The field's type as the table names it (``"float"``, ``"int"``, ``"list[float]"`` ...).
    unit : str or None
        The unit of its values (``"kW"``, ``"$/kWh"``, ``"degrees"``, ``"fraction"`` ...), None
        when the table gives none.
    has_default : bool
        Whether the table gives a default.
    default : object
        The service's default (None when there is none).
    minimum, maximum : float or None
        The allowed range of a scalar, in ``unit``.
    item_minimum, item_maximum : float or None
        The allowed range of each item of a list or series.
    choices, item_choices : tuple or None
        The allowed values of the field or of each item.
    shape : str or None
        ``"series"``, ``"monthly"``, ``"scalar_or_series"`` ... for non-scalar fields, else None.
    nullable : bool
        Whether null is allowed.
    required : bool
        Whether the service requires the field.
    doc : str
        The field's description.
    spec : str or None
        The field's rule in short form (``"required -90..90"``).
    service_differences : mapping
        Where the live service's handling differs from the table.
    """

    section: str
    name: str
    type: str
    unit: str | None
    has_default: bool
    default: Any
    minimum: float | None
    maximum: float | None
    item_minimum: float | None
    item_maximum: float | None
    choices: tuple[Any, ...] | None
    item_choices: tuple[Any, ...] | None
    shape: str | None
    nullable: bool
    required: bool
    doc: str
    spec: str | None
    service_differences: Mapping[str, Any]

    @classmethod
    def from_table(cls, section: str, name: str, record: Mapping[str, Any]) -> FieldInfo:
        """The facts of field ``name`` of ``section`` from its record in the schema's field table.

        Parameters
        ----------
        section : str
            The section's key (e.g. ``"PV"``).
        name : str
            The field's name.
        record : mapping
            The field's record in the field table (``type``, ``unit``, ``default``, ``min``,
            ``max``, ``choices`` ...).

        Returns
        -------
        FieldInfo
        """
        facts = {attr: record.get(key) for attr, key in _INFO_KEYS.items()}
        for attr in ("choices", "item_choices"):
            facts[attr] = tuple(facts[attr]) if facts[attr] is not None else None
        return cls(section=section, name=name, has_default="default" in record, **facts,
                   required=record.get("required", False),
                   service_differences=dict(record.get("service", {})))


# FieldInfo attribute -> schema record key, for the facts read as they are.
_INFO_KEYS = {
    "type": "type", "unit": "unit", "default": "default", "minimum": "min", "maximum": "max",
    "item_minimum": "item_min", "item_maximum": "item_max", "choices": "choices",
    "item_choices": "item_choices", "shape": "shape", "nullable": "nullable", "doc": "doc",
    "spec": "spec",
}


def copy_json(value: Any) -> Any:
    """A copy of a JSON-like value (dicts and lists copied, scalars shared)."""
    if isinstance(value, dict):
        return {key: copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_json(item) for item in value]
    return value


_PLAIN_TYPES = (bool, int, float, str)


def to_plain(value: Any) -> Any:
    """Turn numpy scalars, numpy arrays, polars and pandas Series and tuples into plain Python.

    Numbers keep their kind: numpy integers become ``int``, numpy floats become ``float``.
    """
    if value is None or type(value) in _PLAIN_TYPES:
        return value
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):  # int subclasses such as IntEnum
        return int(value)
    if isinstance(value, float):  # float subclasses such as numpy.float64
        return float(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, dict):
        return {key: to_plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(item) for item in value]
    if hasattr(value, "tolist"):  # numpy arrays and scalars, pandas Series
        return to_plain(value.tolist())
    if hasattr(value, "to_list"):  # polars Series
        return to_plain(value.to_list())
    if hasattr(value, "__iter__") and hasattr(value, "__len__") and not isinstance(value, bytes):
        return [to_plain(item) for item in value]
    return value


def summarize(value: Any, limit: int = 8) -> str:
    """A short text for a value: long lists show their length and range, objects their size."""
    if isinstance(value, list) and len(value) > limit:
        numbers = [
            item
            for item in value
            if isinstance(item, (int, float)) and not isinstance(item, bool) and math.isfinite(item)
        ]
        if len(numbers) == len(value):
            return f"<{len(value)} values, {_number(min(numbers))}..{_number(max(numbers))}>"
        return f"<{len(value)} items>"
    if isinstance(value, dict) and len(value) > 3:
        return f"<object with {len(value)} keys>"
    return repr(value)


def _number(value: float) -> str:
    return f"{value:.6g}"


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    hint = difflib.get_close_matches(name, list(known), n=1)
    return f"; did you mean {hint[0]!r}?" if hint else ""


class Record:
    """Ordered storage of set values behind typed ``Field`` attributes."""

    _attr_keys: ClassVar[dict[str, str]] = {}
    _values: dict[str, Any]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        keys: dict[str, str] = {}
        for klass in reversed(cls.__mro__):
            for attr, member in vars(klass).items():
                if isinstance(member, Field):
                    keys[attr] = member.key
        cls._attr_keys = keys

    def __init__(self, **values: Any) -> None:
        object.__setattr__(self, "_values", {})
        for name in values:
            if name not in self._attr_keys:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument "
                                f"{name!r}{_did_you_mean(name, self._attr_keys)}")
        self._assign_all(values)

    def _get(self, key: str) -> Any:
        return self._values.get(key)

    def _set(self, key: str, value: Any) -> None:
        self._values[key] = value

    def _assign_all(self, values: Mapping[str, Any]) -> None:
        for attr, value in values.items():
            if value is not UNSET:
                self._set(self._attr_keys.get(attr, attr), value)

    if not TYPE_CHECKING:  # hidden from type checkers so they still flag misspelt attributes

        def __setattr__(self, name: str, value: Any) -> None:
            if name.startswith("_") or name in self._attr_keys:
                object.__setattr__(self, name, value)
                return
            raise AttributeError(f"{type(self).__name__} has no field {name!r}"
                                 f"{_did_you_mean(name, self._attr_keys)}")

    def copy(self) -> Self:
        """A deep copy; changing it leaves this one alone."""
        return copy.deepcopy(self)

    def __delitem__(self, key: str) -> None:
        del self._values[key]

    def __contains__(self, key: object) -> bool:
        return key in self._values


class Section(Record):
    """Base class of the section classes (``PV``, ``ElectricLoad``, ...).

    Users do not construct `Section` itself but its subclasses, whose keyword arguments are the
    section's fields (each documented with its unit, default and range).

    Attributes
    ----------
    extra : dict
        Keys the field table does not know (kept and sent as they are).
    """

    _key: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls._key:
            docs = DOCS[cls._key]["fields"]
            for name, member in vars(cls).items():
                if isinstance(member, Field) and name in docs:
                    member.__doc__ = docs[name]["text"]

    def _table(self) -> Mapping[str, Mapping[str, Any]]:
        fields: Mapping[str, Mapping[str, Any]] = SECTIONS[self._key]["fields"]
        return fields

    def _get(self, key: str) -> Any:
        if key in self._values:
            return self._values[key]
        record = self._table().get(key)
        if record is None or "default" not in record:
            return None
        return copy_json(record["default"])

    def _set(self, key: str, value: Any) -> None:
        check_optimizer_value(self._key, key, value)
        self._values[key] = to_plain(value)

    @classmethod
    def _from_raw(cls, values: Mapping[str, Any]) -> Self:
        """A section holding exactly ``values`` (copied, unknown keys included, nothing checked
        but the unit traps)."""
        section = cls()
        for key, value in values.items():
            check_optimizer_value(cls._key, key, value)
        section._values.update(to_plain(dict(values)))
        return section

    @classmethod
    def fields(cls) -> dict[str, FieldInfo]:
        """Every field of the section, in the table's order.

        Returns
        -------
        dict of str to FieldInfo
            Field name to what the field table says about it (type, unit such as kW, kWh, $ or
            degrees, default, range, choices).
        """
        table = SECTIONS[cls._key]["fields"]
        return {name: FieldInfo.from_table(cls._key, name, record) for name, record in table.items()}

    @classmethod
    def field_info(cls, name: str) -> FieldInfo:
        """What the field table says about one field (type, unit, default, range, choices).

        Parameters
        ----------
        name : str
            The field's name (e.g. ``"max_kw"``).

        Returns
        -------
        FieldInfo

        Raises
        ------
        KeyError
            The section has no such field.
        """
        table = SECTIONS[cls._key]["fields"]
        if name not in table:
            raise KeyError(f"{cls._key} has no field {name!r}")
        return FieldInfo.from_table(cls._key, name, table[name])

    def is_set(self, name: str) -> bool:
        """True when the field holds a value the user set (even one equal to the default).

        Parameters
        ----------
        name : str
            The field's name.

        Returns
        -------
        bool
        """
        return name in self._values

    @property
    def extra(self) -> dict[str, Any]:
        """Keys the field table does not know (kept and sent as they are)."""
        table = self._table()
        return {key: value for key, value in self._values.items() if key not in table}

    def __getitem__(self, key: str) -> Any:
        if key in self._values or key in self._table():
            return self._get(key)
        raise KeyError(key)

    def __setitem__(self, key: str, value: Any) -> None:
        """Set any key, including one the field table does not know (sent as is)."""
        self._set(key, value)

    def to_dict(self, *, include_defaults: bool = False) -> dict[str, Any]:
        """The set fields as plain JSON-ready values; with defaults for the others if asked.

        Parameters
        ----------
        include_defaults : bool, default False
            Add the default of every field not set (fields without a default stay absent).

        Returns
        -------
        dict
            Field name to value (copied), in the service's units (kW, kWh, $, degrees ...).
        """
        result = copy_json(self._values)
        if include_defaults:
            for name, record in self._table().items():
                if name not in result and record.get("default") not in (None, "", []):
                    result[name] = copy_json(record["default"])
        return dict(result)

    def validate(self, *, time_steps_per_hour: int = 1) -> list[Any]:
        """Problems of this section on its own (fields and in-section rules, not cross-section).

        Parameters
        ----------
        time_steps_per_hour : int, default 1
            The scenario's time steps per hour (1, 2 or 4), which sets the length a series
            field must have (8760 times it).

        Returns
        -------
        list of Problem
            Empty when the section is valid on its own.
        """
        from sunflux.optimizer.validation import validate_section_dict

        return validate_section_dict(
            self._key, self._values, time_steps_per_hour=time_steps_per_hour
        )

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Section)
        return self._values == other._values

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        parts = [f"{key}={summarize(value)}" for key, value in self._values.items()
                 if key.isidentifier()]
        odd = {key: value for key, value in self._values.items() if not key.isidentifier()}
        if odd:
            parts.append(f"**{summarize(odd)}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def _html_rows(self, label: str) -> list[str]:
        table = self._table()
        rows = []
        for key, value in self._values.items():
            record = table.get(key)
            unit = record.get("unit", "") if record else "(not in the field table)"
            rows.append(
                "<tr>"
                f"<td>{html.escape(label)}</td><td><code>{html.escape(key)}</code></td>"
                f"<td>{html.escape(summarize(value))}</td><td>{html.escape(unit)}</td>"
                "</tr>"
            )
        if not rows:
            rows.append(f"<tr><td>{html.escape(label)}</td><td colspan='3'>(nothing set)</td></tr>")
        return rows

    def _repr_html_(self) -> str:
        return html_table(self._html_rows(self._key))


def html_table(rows: list[str]) -> str:
    head = "<tr><th>Section</th><th>Field</th><th>Value</th><th>Unit</th></tr>"
    return f"<table>{head}{''.join(rows)}</table>"
