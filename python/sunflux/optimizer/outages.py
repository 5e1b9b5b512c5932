"""The outage survival simulation of a sized system (the service's ``resilience_stats``): for
an outage starting at every time step of the year, how many hours the system's PV, wind,
battery and generator carry the critical load. Computed in Rust (``sunflux._core``), which also
reads the simulation's inputs from the results (their defaults from the embedded scenario schema).

::

    result = client.optimizer.run(scenario)
    stats = simulate_outages(result)        # or result.simulate_outages()
    stats["resilience_hours_min"], stats["resilience_hours_avg"], stats["probs_of_surviving"]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sunflux.optimizer._document import ResultDocument

if TYPE_CHECKING:
    from sunflux.optimizer.jobs import OptimizerResult


def simulate_outages(result: OptimizerResult | Mapping[str, Any], *, microgrid_only: bool = False) -> dict[str, Any]:
    """Hours survived by an outage starting at each time step of an optimal result (local or
    live): ``resilience_by_time_step``, ``resilience_hours_min``/``_max``/``_avg``,
    ``outage_durations`` (1 … ⌊max⌋ + 1 hours) and ``probs_of_surviving`` (the share of starts
    surviving each duration). ``microgrid_only`` simulates only what the outage microgrid of the
    multiple-outage form includes (``Outages.*_upgraded``, ``generator_microgrid_size_kw``), as
    the service's option of that name [1]_. Raises ``ParameterError`` when the result is not optimal,
    has no critical load series, or has no ``Outages`` section with ``microgrid_only``.

    Parameters
    ----------
    result : OptimizerResult or mapping
        An optimal result, or a results document as a dict (the live service's JSON).
    microgrid_only : bool, default False
        Simulate only the outage microgrid of the multiple-outage form
        (``Outages.*_upgraded``, ``generator_microgrid_size_kw``).

    Returns
    -------
    dict
        ``resilience_by_time_step`` (hours survived by an outage starting at each time step),
        ``resilience_hours_min``, ``resilience_hours_max``, ``resilience_hours_avg`` (hours),
        ``outage_durations`` (hours, 1 to the floor of the maximum plus 1) and
        ``probs_of_surviving`` (0 to 1, the share of starts surviving each duration).

    Raises
    ------
    ParameterError
        The result is not optimal, has no critical load series, or (with ``microgrid_only``)
        has no ``Outages`` section.

    References
    ----------
    .. [1] NREL, REopt API, "job/results" and "job/resilience_stats" endpoints,
       https://github.com/NREL/REopt_API.
    """
    document = (result if isinstance(result, ResultDocument) else ResultDocument(result))._document
    simulated: dict[str, Any] = document.simulate_outages(microgrid_only)
    return simulated
