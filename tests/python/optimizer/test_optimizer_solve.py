"""`sunflux.optimizer.solve` and `solve_many`: the engine in process, on the same scenarios the
embedded service answers, its refusals, and the size limit the embedded service holds too."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request

import pytest

import sunflux as sf
from support.optimizer_documents import pv_only, scenario
from sunflux.optimizer import solve, solve_many


def test_solve_gives_the_embedded_services_answer(client: sf.Client) -> None:
    local = solve(scenario())
    served = client.optimizer.run(scenario(), poll_interval=0.05)
    assert local.optimal and local.raw["job_type"] == "sunflux.solve"
    for section, field in [("Financial", "lcc"), ("PV", "size_kw"), ("ElectricStorage", "size_kwh"), ("Financial", "npv")]:
        assert local.raw["outputs"][section][field] == pytest.approx(served.raw["outputs"][section][field], rel=1e-9), (section, field)
    assert local.series().height == 8760


def test_the_result_reports_each_case_program_and_solve() -> None:
    """``messages["solver"]``: the optimal and business-as-usual programs' size and solves. PV only
    is a pure LP; forbidding simultaneous export and import adds the service's binary in each of
    the 8,760 steps to the optimal case, and the business-as-usual case (no PV) has fewer columns."""
    lp = solve(pv_only()).messages["solver"]
    assert lp["optimal"]["binaries"] == 0 and lp["optimal"]["nodes"] <= 1
    assert lp["bau"]["variables"] < lp["optimal"]["variables"] and lp["optimal"]["rows"] >= 8760
    assert lp["optimal"]["nonzeros"] >= lp["optimal"]["rows"] and 0 < lp["optimal"]["seconds"] <= lp["seconds"]
    assert len(lp["cases_tried"]) >= 1 and all(set(case) == {"case", "objective"} for case in lp["cases_tried"])
    document = pv_only()
    document["ElectricTariff"]["wholesale_rate"] = 0.05
    document["ElectricUtility"] = {"allow_simultaneous_export_import": False}
    milp = solve(document).messages["solver"]
    assert milp["optimal"]["binaries"] == lp["optimal"]["binaries"] + 8760
    assert milp["optimal"]["variables"] >= lp["optimal"]["variables"] + 8760


def test_a_result_stays_in_rust_until_its_dicts_are_read_and_pickles_whole() -> None:
    import pickle

    result = solve(scenario())
    frame, row = result.series(), result.summary()
    assert not {"raw", "inputs", "outputs"} & set(vars(result)), "series() and summary() converted the document"
    assert frame.height == 8760 and row["PV.size_kw"][0] == result.outputs.PV.size_kw
    copy = pickle.loads(pickle.dumps(result))
    assert copy.raw == result.raw and copy.series().equals(frame) and repr(copy) == repr(result)
    assert sf.optimizer.OptimizerResult(result.raw).summary().equals(row)


def test_solve_refuses_what_the_service_would_fetch() -> None:
    without_production = scenario()
    del without_production["PV"]["production_factor_series"]
    with pytest.raises(sf.ParameterError, match="production_factor_series"):
        solve(without_production)
    reference_load = scenario()
    reference_load["ElectricLoad"] = {"doe_reference_name": "Hospital"}
    with pytest.raises(sf.ParameterError, match="resolve"):
        solve(reference_load)


def test_solve_refuses_bad_input_before_solving() -> None:
    broken = scenario()
    broken["PV"]["max_kw"] = -5
    with pytest.raises(sf.ParameterError, match="max_kw"):
        solve(broken)
    with pytest.raises(sf.ParameterError, match="threads"):
        solve(scenario(), threads=0)


def test_solve_many_keeps_the_input_order() -> None:
    costs = [900.0, 5000.0, 1600.0]
    many = solve_many([scenario(cost) for cost in costs], threads=2, progress=False)
    one_by_one = [solve(scenario(cost)) for cost in costs]
    assert [r.raw["outputs"]["Financial"]["lcc"] for r in many] == pytest.approx([r.raw["outputs"]["Financial"]["lcc"] for r in one_by_one], rel=1e-9)
    assert many[0].raw["outputs"]["PV"]["size_kw"] > many[1].raw["outputs"]["PV"]["size_kw"]
    with pytest.raises(sf.ParameterError, match=r"scenarios\[1\]"):
        solve_many([scenario(), {"PV": {"max_kw": -1}}], progress=False)


def test_a_scenario_beyond_the_size_limit_is_refused_at_once_and_the_service_keeps_answering(service: sf.LocalService, client: sf.Client) -> None:
    huge = scenario()
    huge["ElectricUtility"] = {"outage_start_time_steps": list(range(1, 8001)), "outage_durations": [48]}
    started = time.monotonic()
    with pytest.raises(sf.ParameterError, match="outage_start_time_steps"):
        solve(huge)
    assert time.monotonic() - started < 1.0
    body = json.dumps(huge).encode()
    for _ in range(10):
        request = urllib.request.Request(f"{service.base_url}/api/optimizer/stable/job/", data=body, method="POST",
                                         headers={"content-type": "application/json", "X-Api-Key": service.api_key})
        started = time.monotonic()
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=5)
        assert refused.value.code == 400
        assert "outage_start_time_steps" in refused.value.read().decode()
        assert time.monotonic() - started < 1.0
    assert client.optimizer.run(scenario(), poll_interval=0.05).optimal


#: What ten refused oversized scenarios may add to the resident memory of the process that hosts
#: the embedded service (docs/design.md, "Limits"): each body is parsed, measured and
#: dropped, never built.
REFUSED_GROWTH_MIB = 200
#: The child's address space: the 1.6 GB a single unbounded build once took would fail in it.
HOST_ADDRESS_SPACE = 4 << 30


def test_ten_oversized_scenarios_leave_the_hosting_process_alive_and_its_memory_bounded() -> None:
    code = f"""
        import json, resource, urllib.error, urllib.request
        import sunflux as sf
        with sf.LocalService() as service:
            huge = {scenario()!r}
            huge["ElectricUtility"] = {{"outage_start_time_steps": list(range(1, 8001)), "outage_durations": [24]}}
            body = json.dumps(huge).encode()
            url = service.base_url + "/api/optimizer/stable/job/"
            headers = {{"content-type": "application/json", "X-Api-Key": service.api_key}}
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            for _ in range(10):
                try:
                    urllib.request.urlopen(urllib.request.Request(url, data=body, method="POST", headers=headers), timeout=30)
                    raise SystemExit("accepted")
                except urllib.error.HTTPError as refused:
                    assert refused.code == 400 and "outage_start_time_steps" in refused.read().decode()
            grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
            client = sf.Client(api_key=service.api_key, base_url=service.base_url)
            small = {scenario()!r}
            print(round(grown, 1), client.optimizer.run(small, poll_interval=0.05).optimal)
    """
    limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (HOST_ADDRESS_SPACE, HOST_ADDRESS_SPACE))  # noqa: E731
    done = subprocess.run([sys.executable, "-"], input=textwrap.dedent(code), capture_output=True, text=True, timeout=300, preexec_fn=limit)
    assert done.returncode == 0, f"exit {done.returncode}:\n{done.stdout}\n{done.stderr}"
    grown, optimal = done.stdout.split()
    assert optimal == "True" and float(grown) < REFUSED_GROWTH_MIB, done.stdout
