"""Optimizer: end-to-end ``client.optimizer.run`` against the embedded optimizer for one year of PV
+ storage on a TOU and demand tariff at 1, 2 and 4 time steps per hour, and how time scales with
the number of steps; then one hourly year on URDB rates (a TOU rate with tiered TOU demand, and a
declining block rate whose falling tier is a binary per month) beside the LP-only case."""

from __future__ import annotations

import math

import sunflux as sf
from sunflux.optimizer import ElectricLoad, ElectricTariff, Scenario, Site
from sunflux.optimizer.jobs import OptimizerResult
from timing import best_of

TITLE = "Optimizer: one year of PV + storage (TOU and demand tariff) end to end, at 1, 2 and 4 steps per hour"
HOURS = 8760
STEPS_PER_HOUR = (1, 2, 4)
#: Runs per resolution (best of): the 35,040-step solve alone takes tens of seconds.
REPEATS = {1: 3, 2: 2, 4: 2}
#: A business day: 60 kW at night, 150 kW from 08:00 to 18:00.
DAY_LOAD_KW = [150.0 if 8 <= hour < 18 else 60.0 for hour in range(24)]
#: $/kWh: 7 ¢ off-peak, 28 ¢ from 14:00 to 20:00.
TOU_DAY = [0.28 if 14 <= hour < 20 else 0.07 for hour in range(24)]
DEMAND_RATE = 15.0
#: Rates of the embedded service's rate database stand-in (synthetic).
URDB_CASES = {"URDB TOU energy, tiered TOU demand, flat demand, fixed and minimum charges": "5fa1e0000000000000000002"}
#: The stand-in's declining block rate: 20,000 kWh a month at 14 ¢, then 10 ¢ (a falling tier).
DECLINING_BLOCK = "5fa1e0000000000000000003"
URDB_REPEATS = 3


def scenario(steps_per_hour: int) -> Scenario:
    load = [kw for _ in range(HOURS // 24) for kw in DAY_LOAD_KW for _ in range(steps_per_hour)]
    tariff = ElectricTariff.tou(TOU_DAY, time_steps_per_hour=steps_per_hour)
    tariff.monthly_demand_rates = [DEMAND_RATE] * 12
    return (
        Scenario(site=Site(latitude=39.74, longitude=-105.17))
        .with_settings(time_steps_per_hour=steps_per_hour, timeout_seconds=1200)
        .with_load(ElectricLoad(loads_kw=load, year=2017))
        .with_tariff(tariff)
        .with_pv(max_kw=1000, installed_cost_per_kw=1400.0, om_cost_per_kw=18.0)
        .with_storage(max_kw=500, max_kwh=2000, installed_cost_per_kw=350.0, installed_cost_per_kwh=250.0, installed_cost_constant=0.0)
    )


def urdb_section(client: sf.Client) -> str:
    """Hourly year, PV + storage: the LP-only custom TOU case and the URDB rates, same run."""
    cases = {"custom TOU energy + monthly demand (LP only)": scenario(1)}
    for label, rate in URDB_CASES.items():
        cases[label] = scenario(1).with_tariff(ElectricTariff(urdb_label=rate)).resolve(client, cache_dir=None)
    rows = []
    baseline = None
    for label, document in cases.items():
        last: list[OptimizerResult] = []

        def optimize() -> None:
            last.append(client.optimizer.run(document, timeout=1200, poll_interval=0.05, max_interval=0.1))

        seconds = best_of(optimize, URDB_REPEATS)
        baseline = baseline or seconds
        outputs = last[-1].outputs
        rows.append(
            f"| {label} | {seconds:.2f} | {seconds / baseline:.2f}x | "
            f"{outputs.PV.size_kw:.1f} kW, {outputs.ElectricStorage.size_kw:.1f} kW / {outputs.ElectricStorage.size_kwh:.1f} kWh | "
            f"{outputs.ElectricTariff.year_one_bill_before_tax:,.0f} | {outputs.Financial.lcc:,.0f} |"
        )
    return (
        "### URDB rates, one hourly year of PV + storage\n\n"
        f"`client.optimizer.run` end to end (best of {URDB_REPEATS}) on the load above with the rates of "
        "the embedded rate-database stand-in (synthetic), resolved once with `Scenario.resolve`; the "
        "first row is the LP-only custom tariff of the table above, in the same run.\n\n"
        "| tariff | run() s | vs LP only | sizes | year-one bill $ | lcc $ |\n|---|---|---|---|---|---|\n" + "\n".join(rows)
    )


def branching_section(client: sf.Client) -> str:
    """The binaries' cost: a falling tier vs the same PV-only scenario on a flat rate."""
    base = (
        Scenario(site=Site(latitude=39.74, longitude=-105.17))
        .with_settings(timeout_seconds=1200)
        .with_load(ElectricLoad(doe_reference_name="RetailStore", annual_kwh=600_000))
        .with_pv(max_kw=300, installed_cost_per_kw=1400.0, om_cost_per_kw=15.0)
    )
    cases = {
        "blended 12 ¢/kWh, $8/kW (LP only)": base.with_tariff(ElectricTariff.blended(energy_rate=0.12, demand_rate=8.0)).resolve(client, cache_dir=None),
        "URDB declining block (MILP)": base.with_tariff(ElectricTariff(urdb_label=DECLINING_BLOCK)).resolve(client, cache_dir=None),
    }
    rows, baseline = [], None
    for label, document in cases.items():
        last: list[OptimizerResult] = []

        def optimize() -> None:
            last.append(client.optimizer.run(document, timeout=1300, poll_interval=0.05, max_interval=0.5))

        seconds = best_of(optimize, 1)
        baseline = baseline or seconds
        rows.append(f"| {label} | {seconds:.2f} | {seconds / baseline:.1f}x | {last[-1].outputs.PV.size_kw:.1f} kW |")
    return (
        "### A tier whose price falls with use (a MILP), one hourly year of PV\n\n"
        "A 600 MWh retail load with PV only, once on a flat rate (one LP) and once on the stand-in's "
        "declining block (the cheaper second block needs the first full: every month is an either-or "
        "choice: the relaxation first, HiGHS when its rounded point is not within the gap). One run each.\n\n"
        "| tariff | run() s | vs LP only | PV |\n|---|---|---|---|\n" + "\n".join(rows)
    )


def run() -> str:
    scenarios = {n: scenario(n) for n in STEPS_PER_HOUR}
    rows = []
    # Polling every 0.05–0.1 s through long solves exceeds the gateway's default 1,000 per hour.
    with sf.LocalService(rate_limits=sf.RateLimits(requests=1_000_000)) as svc:
        client = svc.client()
        results: dict[int, OptimizerResult] = {}
        totals: dict[int, float] = {}
        fetches: dict[int, float] = {}
        for n, document in scenarios.items():
            last: list[OptimizerResult] = []

            def optimize() -> None:
                last.append(client.optimizer.run(document, timeout=1200, poll_interval=0.05, max_interval=0.1))

            totals[n] = best_of(optimize, REPEATS[n])
            results[n] = last[-1]
            fetches[n] = best_of(lambda: client.optimizer.results(last[-1].run_uuid).series(), 3)
        urdb = urdb_section(client) + "\n\n" + branching_section(client)
    with sf.LocalService(optimizer=sf.OptimizerSettings(hang=True)) as idle:
        idle_client = idle.client()
        posts = {n: best_of(lambda: idle_client.optimizer.submit(document), 3) for n, document in scenarios.items()}
    previous = None
    for n in STEPS_PER_HOUR:
        outputs = results[n].outputs
        steps = HOURS * n
        scaling = ""
        if previous is not None:
            ratio = totals[n] / totals[previous]
            scaling = f"{ratio:.2f}x (exponent {math.log2(ratio):.2f})"
        rows.append(
            f"| {n} | {steps:,} | {totals[n]:.2f} | {posts[n]:.2f} | {fetches[n]:.2f} | {totals[n] - posts[n] - fetches[n]:.2f} | {scaling or '—'} | "
            f"{outputs.PV.size_kw:.1f} kW, {outputs.ElectricStorage.size_kw:.1f} kW / {outputs.ElectricStorage.size_kwh:.1f} kWh | "
            f"{outputs.Financial.lcc:,.0f} |"
        )
        previous = n
    overall = totals[STEPS_PER_HOUR[-1]] / totals[STEPS_PER_HOUR[0]]
    exponent = math.log(overall) / math.log(STEPS_PER_HOUR[-1] / STEPS_PER_HOUR[0])
    return (
        "One `client.optimizer.run` per resolution against `LocalService`: POST (the builder's validation, "
        "the PV engine on the site's synthetic weather, the job starts), the Clarabel solves of the optimal "
        "cases and business as usual on the job's thread, polling every 0.05–0.1 s, and the results JSON "
        "parsed. Best of "
        f"{', '.join(f'{REPEATS[n]} ({n}/h)' for n in STEPS_PER_HOUR)}. "
        "*POST* is timed on a service whose jobs never start (nothing competes for the CPU); *GET + frame* "
        "is `results(run_uuid).series()` of the finished run; *solve and polling* is the rest.\n\n"
        "| steps/h | steps | run() s | POST s | GET + frame s | solve and polling s | vs half the steps | sizes | lcc $ |\n"
        "|---|---|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n\n"
        f"From {HOURS * STEPS_PER_HOUR[0]:,} to {HOURS * STEPS_PER_HOUR[-1]:,} steps the time grows {overall:.1f}x, "
        f"as steps^{exponent:.2f} (exponent 1 would be linear). The sizes barely move with the resolution: the "
        "hourly PV production is forward-filled to the finer steps and the load and prices are the same.\n\n"
        + urdb
    )
