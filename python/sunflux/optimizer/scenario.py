"""``Scenario``: a whole optimizer input scenario, built fluently or read from JSON.

A scenario keeps exactly what was set or read (section order, unknown keys, explicit nulls and
the int/float kind of every number), so ``Scenario.from_json(text).to_json()`` gives the same
JSON back. Validation runs on the plain dict through ``validate_scenario_dict``.
"""

from __future__ import annotations

import difflib
import html
import json
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable, Mapping, Sequence

from sunflux._errors import ParameterError
from sunflux.optimizer._base import (
    UNSET,
    Section,
    UnknownFieldWarning,
    copy_json,
    html_table,
    summarize,
    to_plain,
)
from sunflux.optimizer._fields import SECTIONS, TOP_LEVEL_STRINGS
from sunflux.optimizer.sections import (
    PV,
    SECTION_CLASSES,
    ElectricLoad,
    ElectricStorage,
    ElectricTariff,
    ScenarioSections,
    Settings,
)
from sunflux.optimizer.validation import (
    Problem,
    not_a_scenario_message,
    validate_scenario_dict,
)

__all__ = ["Scenario", "Difference"]

_ATTRS = {key: section["attr"] for key, section in SECTIONS.items()}


@dataclass(frozen=True)
class Difference:
    """One place where two scenarios differ; ``left``/``right`` are UNSET where a side lacks it.

    Parameters
    ----------
    path : str
        Where they differ (``"PV.max_kw"``, ``"PV[1].tilt"``, ``"ElectricLoad.loads_kw[5]"``).
    left, right : object
        The value in each scenario, in the service's units; UNSET where a side lacks it.
    note : str, default ""
        A remark shown after the values.
    """

    path: str
    left: Any
    right: Any
    note: str = ""

    def __str__(self) -> str:
        text = f"{self.path}: {_shown(self.left)} -> {_shown(self.right)}"
        return f"{text} ({self.note})" if self.note else text


def _shown(value: Any) -> str:
    return "(unset)" if value is UNSET else summarize(value)


def _same(left: Any, right: Any) -> bool:
    """Equal as JSON numbers compare (500 == 500.0), but a bool is not a number."""
    if isinstance(left, bool) != isinstance(right, bool):
        return False
    return bool(left == right)


class Scenario(ScenarioSections):
    """An optimizer input scenario: typed sections, validation and lossless JSON round trips.

    Build it with keyword sections (``Scenario(site=Site(latitude=39.7, longitude=-105.2))``),
    with the ``with_*`` methods (each returns a new scenario) or by setting attributes
    (``scenario.pv = PV(max_kw=100)``; setting None removes a section). Read one with
    ``Scenario.from_json(path_or_text)`` / ``Scenario.from_dict(d)``; unknown keys are kept,
    sent back as they were, and reported with an ``UnknownFieldWarning``. Each section argument
    takes the section object or its dict (the service's keys); the entries below come from the
    field table.
    """

    # ---------------------------------------------------------------- storage

    def _set(self, key: str, value: Any) -> None:
        if value is None:
            self._values.pop(key, None)
            return
        if key in TOP_LEVEL_STRINGS:
            self._values[key] = value
            return
        section_class = SECTION_CLASSES[key]
        many = SECTIONS[key]["many"]
        if isinstance(value, section_class):
            self._values[key] = value
        elif many and isinstance(value, (list, tuple)) and value and all(
            isinstance(item, (section_class, Mapping)) for item in value
        ):
            self._values[key] = [self._coerce(section_class, item) for item in value]
        elif isinstance(value, Mapping):
            self._values[key] = self._coerce(section_class, value)
        else:
            expected = f"a {key} object" + (" or a list of them" if many else "")
            raise TypeError(f"{_ATTRS[key]} must be {expected}, not {type(value).__name__}")

    @staticmethod
    def _coerce(section_class: type[Section], value: Any) -> Section:
        if isinstance(value, section_class):
            return value
        if isinstance(value, Section):
            raise TypeError(f"expected a {section_class.__name__}, not a {type(value).__name__}")
        section: Section = section_class._from_raw(value)
        _warn_unknown([f"{section_class._key}.{name}" for name in section.extra])
        return section

    def _map(self, section: Callable[[Section], Any], other: Callable[[Any], Any]) -> dict[str, Any]:
        """The values with ``section`` applied to each section object (in a list too) and
        ``other`` to everything else."""
        result: dict[str, Any] = {}
        for key, value in self._values.items():
            if isinstance(value, Section):
                result[key] = section(value)
            elif isinstance(value, list) and value and isinstance(value[0], Section):
                result[key] = [section(item) for item in value]
            else:
                result[key] = other(value)
        return result

    def _sections(self, key: str) -> list[tuple[str, Section]]:
        """(path, section) of the section objects under ``key``, a PV list's arrays one by one."""
        value = self._values.get(key)
        if isinstance(value, list):
            return [(f"{key}[{index}]", item) for index, item in enumerate(value)
                    if isinstance(item, Section)]
        return [(key, value)] if isinstance(value, Section) else []

    def _raw(self) -> dict[str, Any]:
        """The scenario as a dict that shares its values (for validation; do not modify)."""
        return self._map(lambda section: section._values, lambda value: value)

    @property
    def extra(self) -> dict[str, Any]:
        """Top-level keys that are neither sections nor the service's uuid strings."""
        return {key: value for key, value in self._values.items()
                if key not in SECTIONS and key not in TOP_LEVEL_STRINGS}

    def __getitem__(self, key: str) -> Any:
        """A section by its key (``scenario["ElectricLoad"]``) or any other top-level key."""
        if key in self._values:
            return self._values[key]
        if key in SECTIONS or key in TOP_LEVEL_STRINGS:
            return None
        raise KeyError(key)

    def __setitem__(self, key: str, value: Any) -> None:
        """Set a section by its key, or keep any other top-level key as is."""
        if key in SECTIONS or key in TOP_LEVEL_STRINGS:
            self._set(key, value)
        else:
            self._values[key] = to_plain(value)

    # ---------------------------------------------------------------- building

    def with_section(self, *sections: Section) -> Scenario:
        """A copy with these sections set (each replaces the section of its type).

        Parameters
        ----------
        *sections : Section
            Section objects (``Site``, ``PV``, ``ElectricTariff`` ...); each is copied and replaces
            the section of its type, a later one winning over an earlier one of the same type.

        Returns
        -------
        Scenario
            A new scenario; this one is left as it is.

        Raises
        ------
        TypeError
            An argument is not a section object.
        """
        scenario = self.copy()
        for section in sections:
            if not isinstance(section, Section):
                raise TypeError(f"expected a section object, not {type(section).__name__}")
            scenario._set(section._key, section.copy())
        return scenario

    def with_pv(self, *arrays: PV, **fields: Any) -> Scenario:
        """A copy with PV set: ``with_pv(max_kw=100)``, ``with_pv(PV(...))`` or several arrays.

        Arrays replace any PV already set; several make PV a list (give each a distinct
        ``name``). Fields update the one array already set (its other fields kept) or make one.

        Parameters
        ----------
        *arrays : PV
            PV sections, copied; one sets PV, several set a list of arrays.
        **fields
            PV fields when no array is given, e.g. ``max_kw`` (kW DC), ``tilt`` and ``azimuth``
            (degrees), ``installed_cost_per_kw`` ($/kW); see `PV`.

        Returns
        -------
        Scenario
            A new scenario; this one is left as it is.

        Raises
        ------
        TypeError
            Both arrays and fields are given, a field is not a PV field, or fields are given
            while PV holds several arrays.
        """
        if arrays and fields:
            raise TypeError("give PV objects or PV fields, not both")
        if not arrays:
            if isinstance(self._values.get("PV"), list):
                raise TypeError("PV holds several arrays: give PV objects, or set the fields on one array")
            return self._with(PV, None, fields)
        scenario = self.copy()
        if len(arrays) == 1:
            scenario._set("PV", arrays[0].copy())
        else:
            scenario._set("PV", [array.copy() for array in arrays])
        return scenario

    def with_storage(self, storage: ElectricStorage | None = None, /, **fields: Any) -> Scenario:
        """A copy with ElectricStorage set from an object or from its fields.

        Parameters
        ----------
        storage : ElectricStorage, optional
            The section (copied), positional only.
        **fields
            ElectricStorage fields to set in the section already there (its other fields are
            kept; the section is made when absent), when no section is given, e.g. ``max_kw``
            (kW of power), ``max_kwh`` (kWh of energy), ``soc_min_fraction`` (0 to 1); see
            `ElectricStorage`.

        Returns
        -------
        Scenario
            A new scenario; this one is left as it is.

        Raises
        ------
        TypeError
            Both a section and fields are given, or a field is unknown.
        """
        return self._with(ElectricStorage, storage, fields)

    def with_tariff(self, tariff: ElectricTariff | None = None, /, **fields: Any) -> Scenario:
        """A copy with ElectricTariff set (e.g. ``with_tariff(ElectricTariff.tou(rates))``).

        Parameters
        ----------
        tariff : ElectricTariff, optional
            The section (copied), positional only.
        **fields
            ElectricTariff fields to set in the section already there (its other fields are
            kept; the section is made when absent), when no section is given, e.g.
            ``urdb_label`` or ``blended_annual_energy_rate`` ($/kWh); see `ElectricTariff`.

        Returns
        -------
        Scenario
            A new scenario; this one is left as it is.

        Raises
        ------
        TypeError
            Both a section and fields are given, or a field is unknown.
        """
        return self._with(ElectricTariff, tariff, fields)

    def with_load(self, load: ElectricLoad | None = None, /, **fields: Any) -> Scenario:
        """A copy with ElectricLoad set (e.g. ``with_load(ElectricLoad.flat(annual_kwh=1e6))``).

        Parameters
        ----------
        load : ElectricLoad, optional
            The section (copied), positional only.
        **fields
            ElectricLoad fields to set in the section already there (its other fields are kept;
            the section is made when absent), when no section is given, e.g. ``loads_kw`` (kW,
            one value per time step), ``annual_kwh`` (kWh) with ``doe_reference_name``; see
            `ElectricLoad`.

        Returns
        -------
        Scenario
            A new scenario; this one is left as it is.

        Raises
        ------
        TypeError
            Both a section and fields are given, or a field is unknown.
        """
        return self._with(ElectricLoad, load, fields)

    def with_settings(self, settings: Settings | None = None, /, **fields: Any) -> Scenario:
        """A copy with Settings set (e.g. ``with_settings(time_steps_per_hour=4)``).

        Parameters
        ----------
        settings : Settings, optional
            The section (copied), positional only.
        **fields
            Settings fields to set in the section already there (its other fields are kept; the
            section is made when absent), when no section is given, e.g. ``time_steps_per_hour``
            (1, 2 or 4) or ``timeout_seconds`` (s); see `Settings`.

        Returns
        -------
        Scenario
            A new scenario; this one is left as it is.

        Raises
        ------
        TypeError
            Both a section and fields are given, or a field is unknown.
        """
        return self._with(Settings, settings, fields)

    def _with(
        self, section_class: type[Section], section: Section | None, fields: Mapping[str, Any]
    ) -> Scenario:
        if section is not None and fields:
            raise TypeError(f"give a {section_class.__name__} or its fields, not both")
        if section is not None:
            return self.with_section(section)
        given = section_class(**fields)
        current = self._values.get(section_class._key)
        updated = current.copy() if isinstance(current, section_class) else section_class()
        updated._values.update(given._values)
        scenario = self.copy()
        scenario._set(section_class._key, updated)
        return scenario

    # ---------------------------------------------------------------- validation

    def validate(self, *, strict: bool = False) -> list[Problem]:
        """Every problem of the scenario (an empty list when it is valid). Keys the field table
        does not know are kept and sent (the live service ignores them); with ``strict=True``
        each is a problem too (rule ``"unknown_field"``, with the closest known name). The rules
        follow the service's field table [1]_.

        Parameters
        ----------
        strict : bool, default False
            Report keys the field table does not know as problems too.

        Returns
        -------
        list of Problem
            One per problem (its section, field, path, rule, value and message), empty when the
            scenario is valid.

        References
        ----------
        .. [1] NREL, "REopt API: inputs", https://github.com/NREL/REopt_API (the
           ``job/inputs`` field reference that the schema's descriptions follow).
        """
        problems = validate_scenario_dict(self._raw())
        if strict:
            problems += [
                Problem(section, field, path, "unknown_field", value, f"not a known field{_did_you_mean(path)}")
                for section, field, path, value in self._unknown_keys()
            ]
        return problems

    def _unknown_keys(self) -> list[tuple[str, str, str, Any]]:
        """(section, field, path, value) of every key the field table does not know."""
        found: list[tuple[str, str, str, Any]] = []
        for key, value in self._values.items():
            if key not in SECTIONS and key not in TOP_LEVEL_STRINGS:
                found.append(("", key, key, value))
            found += [(key, name, f"{path}.{name}", extra) for path, section in self._sections(key)
                      for name, extra in section.extra.items()]
        return found

    def check(self, *, strict: bool = False) -> Scenario:
        """Raise ``ParameterError`` listing every problem (unknown keys too with ``strict``);
        return the scenario when valid.

        Parameters
        ----------
        strict : bool, default False
            Count keys the field table does not know as problems too.

        Returns
        -------
        Scenario
            This scenario (not a copy), so that calls chain.

        Raises
        ------
        ParameterError
            The scenario has problems; its message lists each (see `validate`).
        """
        problems = self.validate(strict=strict)
        if problems:
            raise ParameterError(problems)
        return self

    # ---------------------------------------------------------------- outside data

    def resolve(self, client: Any, *, cache_dir: str | os.PathLike[str] | None | bool = True) -> Scenario:
        """Return a self-contained copy for offline solves.

        The scenario's references to outside data are fetched through ``client`` and written
        into the copy, so `solve` and the embedded optimizer need no network; this scenario is
        left as it is.

        Parameters
        ----------
        client : Client
            The client that fetches the data (the service's or the embedded service's).
        cache_dir : str, path-like, bool or None, default True
            A folder where fetched data are kept by their inputs; True for
            ``sunflux.optimizer.resolve.default_cache_dir()``; None or False for no cache.

        Returns
        -------
        Scenario
            A copy in which ``ElectricLoad.doe_reference_name`` (or the blended form, with
            ``annual_kwh`` / ``monthly_totals_kwh``) became ``loads_kw`` (kW, one value per time
            step) from the optimizer service's load endpoint, and ``ElectricTariff.urdb_label``
            (or the utility and rate names) became ``urdb_response`` from the Utility Rate
            Database.

        Raises
        ------
        ParameterError
            The scenario's load or tariff reference is incomplete.
        ApiError
            The service refused a request (an unknown building type or rate label).
        """
        from sunflux.optimizer.resolve import resolve

        return resolve(self, client, cache_dir=cache_dir)

    # ---------------------------------------------------------------- reading and writing

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scenario:
        """A scenario holding exactly ``data`` (copied); unknown keys are kept and warned about.

        Raises ``ParameterError`` when ``data`` is not a scenario (no section keys, or a section
        that is not an object), with a hint when it is a URDB rate or a results response.

        Parameters
        ----------
        data : mapping
            The scenario as the optimizer service's JSON reads: section keys (``"Site"``,
            ``"PV"`` ...) holding objects (a list of objects for sections that allow several),
            in the service's units (kW, kWh, $, degrees).

        Returns
        -------
        Scenario
            The scenario; values are copied, not validated (see `validate`).

        Raises
        ------
        ParameterError
            ``data`` is not a mapping, has no section key, or holds a section that is not an
            object.

        Warns
        -----
        UnknownFieldWarning
            For every key the field table does not know (the key is kept).
        """
        if not isinstance(data, Mapping):
            raise ParameterError(
                f"A scenario must be a JSON object of sections, not {type(data).__name__}."
            )
        if not any(key in SECTIONS for key in data):
            raise ParameterError(not_a_scenario_message(data))
        listed = {key: SECTIONS[key]["many"] and isinstance(value, list)
                  for key, value in data.items() if key in SECTIONS}
        problems = [
            Problem(key, "", key, "type", data[key], "Section {} must be {}.".format(
                key, "an object or a list of objects" if many else "an object"))
            for key, many in listed.items()
            if not (isinstance(data[key], Mapping) or many and data[key]
                    and all(isinstance(item, Mapping) for item in data[key]))
        ]
        if problems:
            raise ParameterError(problems)
        scenario = cls()
        for key, value in data.items():
            if key not in SECTIONS:
                scenario._values[key] = to_plain(value)
            elif listed[key]:
                scenario._values[key] = [SECTION_CLASSES[key]._from_raw(item) for item in value]
            else:
                scenario._values[key] = SECTION_CLASSES[key]._from_raw(value)
        _warn_unknown([path for _, _, path, _ in scenario._unknown_keys()])
        return scenario

    @classmethod
    def from_json(cls, source: str | bytes | os.PathLike[str] | IO[str] | IO[bytes]) -> Scenario:
        """A scenario from JSON text, a path to a JSON file, or an open file.

        Parameters
        ----------
        source : str, bytes, path-like or file
            JSON text (a string starting with ``{`` or ``[``, or UTF-8 bytes), the path of a
            JSON file, or an open text or binary file.

        Returns
        -------
        Scenario
            The scenario, as `from_dict` reads the parsed data.

        Raises
        ------
        ParameterError
            The text is not valid JSON or not a scenario.
        FileNotFoundError
            ``source`` is a path that does not exist.
        """
        if isinstance(source, (bytes, bytearray)):
            text = source.decode("utf-8")
        elif isinstance(source, str) and source.lstrip()[:1] in ("{", "["):
            text = source
        elif hasattr(source, "read"):
            content = source.read()
            text = content.decode("utf-8") if isinstance(content, bytes) else content
        else:
            text = Path(os.fspath(source)).read_text(encoding="utf-8")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise ParameterError(f"Not valid JSON: {error}") from None
        return cls.from_dict(data)

    def to_dict(self, *, include_defaults: bool = False) -> dict[str, Any]:
        """The scenario as plain JSON-ready data: what was set, in order, nothing added.

        With ``include_defaults=True`` every section present also gets the default of each
        field not set (fields without a default stay absent; no section is added).

        Parameters
        ----------
        include_defaults : bool, default False
            Fill in the default of every unset field of the sections present.

        Returns
        -------
        dict
            Section keys to plain dicts (lists for several PV arrays) and any other top-level
            keys, copied; values in the service's units (kW, kWh, $, degrees).
        """
        return self._map(lambda section: section.to_dict(include_defaults=include_defaults),
                         copy_json)

    def to_json(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        indent: int | None = 2,
        include_defaults: bool = False,
    ) -> str:
        """The scenario as JSON text; also written to ``path`` when one is given.

        Objects are indented by ``indent`` spaces (None: one compact line); lists of plain
        values such as series stay on one line each.

        Parameters
        ----------
        path : str or path-like, optional
            A file to write the text to (UTF-8, with a final newline).
        indent : int or None, default 2
            Spaces per level; None for one compact line.
        include_defaults : bool, default False
            As in `to_dict`.

        Returns
        -------
        str
            The JSON text (without the final newline).

        Raises
        ------
        ParameterError
            The scenario holds NaN or an infinite number, which JSON cannot hold.
        """
        try:
            text = _dumps(self.to_dict(include_defaults=include_defaults), indent)
        except ValueError:
            not_finite = [p for p in self.validate() if p.rule == "finite"]
            raise ParameterError(
                not_finite or ["The scenario holds a NaN or infinite number."],
                "JSON has no NaN or Infinity; fix these values first:\n"
                + "\n".join(f"  - {problem}" for problem in not_finite),
            ) from None
        if path is not None:
            Path(os.fspath(path)).write_text(text + "\n", encoding="utf-8")
        return text

    # ---------------------------------------------------------------- comparing and showing

    def diff(self, other: Scenario) -> list[Difference]:
        """Where this scenario and ``other`` differ, field by field (numbers compare by value).

        Parameters
        ----------
        other : Scenario
            The scenario to compare with (the right side).

        Returns
        -------
        list of Difference
            One per differing path (e.g. ``"PV.max_kw"``), ``left`` from this scenario and
            ``right`` from ``other``, `UNSET` where a side lacks the key; empty when equal.
        """
        differences: list[Difference] = []
        _diff_values("", self.to_dict(), other.to_dict(), differences)
        return differences

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Scenario):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        parts = []
        for key, value in self._values.items():
            if key in SECTIONS:
                shown = (f"[{', '.join(repr(item) for item in value)}]"
                         if isinstance(value, list) else repr(value))
                parts.append(f"{_ATTRS[key]}={shown}")
            elif key in TOP_LEVEL_STRINGS:
                parts.append(f"{key}={value!r}")
        if self.extra:
            parts.append(f"extra={summarize(self.extra)}")
        return f"Scenario({', '.join(parts)})"

    def _repr_html_(self) -> str:
        rows: list[str] = []
        for key, value in self._values.items():
            if key not in SECTIONS:
                rows.append(f"<tr><td colspan='2'><code>{html.escape(key)}</code></td>"
                            f"<td>{html.escape(summarize(value))}</td><td></td></tr>")
            for path, section in self._sections(key):
                rows += section._html_rows(path)
        if not rows:
            rows.append("<tr><td colspan='4'>(empty scenario)</td></tr>")
        return html_table(rows)


def _slot_sections() -> str:
    """`Scenario`'s Parameters and Attributes sections, one entry per slot of the field table
    (every section, then the top-level strings), so that they follow the schema as the slots do."""
    parameters, attributes = ["Parameters", "----------"], ["Attributes", "----------"]
    for key, section in SECTIONS.items():
        many = f", sequence of {key}" if section["many"] else ""
        text = f"    Section ``{key}``: {section['doc']}"
        parameters += [f"{section['attr']} : {key}{many} or dict, optional", text]
        attributes += [f"{section['attr']} : {key}{many} or None", text]
    for name in TOP_LEVEL_STRINGS:
        text = f"    The scenario's top-level ``{name}`` string."
        parameters += [f"{name} : str, optional", text]
        attributes += [f"{name} : str or None", text]
    attributes += ["extra : dict", "    Top-level keys that are neither sections nor the service's uuid strings."]
    return "\n".join(f"    {line}" for line in ["", *parameters, "", *attributes, ""])


if Scenario.__doc__ is not None:  # None under python -OO
    Scenario.__doc__ += _slot_sections()


def _dumps(value: Any, indent: int | None, level: int = 0) -> str:
    """JSON text with nested objects indented and lists of plain values kept on one line."""
    nested_list = isinstance(value, list) and any(isinstance(item, (dict, list)) for item in value)
    nested_dict = isinstance(value, dict) and value and all(isinstance(key, str) for key in value)
    if indent is None or not (nested_list or nested_dict):
        return json.dumps(value, allow_nan=False)
    inner = " " * (indent * (level + 1))
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(key)}: {_dumps(item, indent, level + 1)}"
                 for key, item in value.items()]
        opening, closing = "{", "}"
    else:
        items = [f"{inner}{_dumps(item, indent, level + 1)}" for item in value]
        opening, closing = "[", "]"
    return opening + "\n" + ",\n".join(items) + "\n" + " " * (indent * level) + closing


def _closest(path: str) -> str | None:
    """The known path closest to an unknown key's (``"PV.arrray_type"`` → ``"PV.array_type"``):
    a section name for a top-level key, a field of its section otherwise; None when nothing is
    close."""
    section, _, field = path.partition(".")
    section = section.split("[", 1)[0]
    if field and section in SECTIONS:
        candidates, name, prefix = list(SECTIONS[section]["fields"]), field, path[: len(path) - len(field)]
    else:
        candidates, name, prefix = [*SECTIONS, *TOP_LEVEL_STRINGS], path, ""
    by_lower = {candidate.lower(): candidate for candidate in candidates}
    close = difflib.get_close_matches(name.lower(), list(by_lower), n=1, cutoff=0.7)
    return prefix + by_lower[close[0]] if close else None


def _did_you_mean(path: str) -> str:
    closest = _closest(path)
    return f"; did you mean {closest!r}?" if closest else ""


def _warn_unknown(paths: Sequence[str]) -> None:
    if not paths:
        return
    hinted = [path if _closest(path) is None else f"{path} (did you mean {_closest(path)!r}?)" for path in paths]
    shown = ", ".join(hinted[:12]) + (f" and {len(paths) - 12} more" if len(paths) > 12 else "")
    warnings.warn(
        UnknownFieldWarning(
            f"{len(paths)} key(s) are not in the optimizer field table and are kept as they are "
            f"(the live service ignores them): {shown}"
        ),
        stacklevel=3,
    )


def _diff_values(path: str, left: Any, right: Any, out: list[Difference]) -> None:
    if isinstance(left, dict) and isinstance(right, dict):
        for key in list(left) + [key for key in right if key not in left]:
            child = f"{path}.{key}" if path else key
            _diff_values(child, left.get(key, UNSET), right.get(key, UNSET), out)
        return
    if left is UNSET or right is UNSET:
        out.append(Difference(path, left, right))
        return
    if isinstance(left, list) and isinstance(right, list):
        if left and right and all(isinstance(item, dict) for item in left + right):
            for index in range(max(len(left), len(right))):
                _diff_values(
                    f"{path}[{index}]",
                    left[index] if index < len(left) else UNSET,
                    right[index] if index < len(right) else UNSET,
                    out,
                )
            return
        if len(left) != len(right):
            out.append(Difference(path, left, right, f"{len(left)} vs {len(right)} values"))
            return
        changed = [i for i, (a, b) in enumerate(zip(left, right)) if not _same(a, b)]
        if changed:
            first = changed[0]
            out.append(Difference(
                path, left, right,
                f"{len(changed)} of {len(left)} values differ, first at index {first}: "
                f"{left[first]!r} -> {right[first]!r}",
            ))
        return
    if not _same(left, right):
        out.append(Difference(path, left, right))
