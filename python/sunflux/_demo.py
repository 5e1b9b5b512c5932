"""The main job: a tour of sunflux against the embedded service, with no key and no network.

Each step prints what it did and what came back.
"""

from __future__ import annotations

import time
import warnings
from typing import TextIO

from sunflux._errors import AuthError, ParameterError, ServiceWarning
from sunflux._local import JobSettings, LocalService


def _step(out: TextIO, title: str) -> None:
    out.write(f"\n== {title}\n")


def run_demo(out: TextIO) -> int:
    """Runs every step; returns the process exit code."""
    import sunflux as sf

    started = time.perf_counter()
    warnings.simplefilter("ignore", ServiceWarning)
    warnings.simplefilter("ignore", DeprecationWarning)
    with LocalService(jobs=JobSettings(start_delay=0.1, run_time=0.3)) as svc:
        out.write(f"embedded service at {svc.base_url} (key {svc.api_key[:4]}…, 40 characters)\n")
        client = svc.client()

        _step(out, "authenticated call and the gateway's answers")
        status = client.request("GET", "local_status", args={"format": "json"}).json()
        out.write(f"status: {status['outputs']['status']}, rate limit {client.rate_limit}\n")
        for auth in ("header", "query", "basic"):
            code = svc.client(auth=auth).request("GET", "local_status", args={"format": "json"}).status
            out.write(f"auth={auth:<6} -> HTTP {code}\n")
        try:
            svc.client(api_key="w" * 40).request("GET", "local_status", args={"format": "json"})
        except AuthError as wrong:
            out.write(f"wrong key    -> {type(wrong).__name__} {wrong.code}\n")
        try:
            svc.client(api_key="k" * 41)
        except ParameterError as bad:
            out.write(f"41-char key  -> {type(bad).__name__}: {bad}\n")

        _step(out, "solar dataset query (v1, all stations within 60 miles of Golden, CO)")
        query = client.solar.data_query(39.74, -105.18, radius=60, all=True, version="v1")
        for code, station in query.closest.items():
            where = f"{station.id:28} {station.city or station.state:20} {station.distance / 1000:6.1f} km" if station else "none in range"
            out.write(f"  {code:6} {where}\n")
        out.write(f"  {len(query.all_stations or [])} stations in range; as a polars frame: {query.to_polars().shape}\n")

        _step(out, "PV estimator v6 (5 kW roof, hourly) and the local engine on the same weather")
        tmy3 = query.closest["tmy3"]
        assert tmy3 is not None
        estimate = client.pv.estimate(5, sf.ModuleType.STANDARD, 14, sf.ArrayType.FIXED_ROOF_MOUNT, 25, 180, file_id=tmy3, timeframe="hourly")
        out.write(f"  {estimate} at station {estimate.station_info.location if estimate.station_info else '?'}\n")
        local = sf.pvwatts.simulate(svc.station_weather(tmy3.id), 5, 0, 14, 1, 25, 180)
        out.write(f"  local engine: {local.ac_annual:.3f} kWh, identical to the service: {local.ac_annual == estimate.ac_annual}\n")
        best = max(sf.ArrayType, key=lambda a: sf.pvwatts.simulate(svc.station_weather(tmy3.id), 5, 0, 14, a, 25 if a < 2 else 0, 180, timeframe="monthly").ac_annual)
        out.write(f"  best array type at this site: {best.name}\n")

        _step(out, "climate download (one site-year as CSV, then the engine on it)")
        year = client.climate.download_csv("ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5", lat=39.74, lon=-105.18, year=2010, email="demo@example.org")
        import polars as pl

        monthly = year.data.group_by(pl.col("timestamp").dt.month().alias("month")).agg(pl.col("temperature_2m").mean()).sort("month")
        out.write(f"  {year}\n  source: {year.metadata.source}\n")
        out.write(f"  mean temperature Jan {monthly['temperature_2m'][0]:.1f} °C, Jul {monthly['temperature_2m'][6]:.1f} °C\n")
        out.write(f"  5 kW roof on this year: {sf.pvwatts.simulate(year.weather(), 5, 0, 14, 1, 25, 180).ac_annual:,.0f} kWh\n")

        _step(out, "optimizer (PV + storage for a flat 500 MWh/yr load, solved locally)")
        from sunflux.optimizer import ElectricLoad, ElectricTariff, Scenario, Site

        scenario = (
            Scenario(site=Site(latitude=39.74, longitude=-105.17))
            .with_load(ElectricLoad.flat(annual_kwh=500_000))
            .with_tariff(ElectricTariff.blended(energy_rate=0.12, demand_rate=15.0))
            .with_pv(max_kw=500, installed_cost_per_kw=1500.0, om_cost_per_kw=18.0)
            .with_storage(max_kwh=2000, installed_cost_per_kw=800.0, installed_cost_per_kwh=400.0)
        )
        plan = client.optimizer.run(scenario, timeout=300, poll_interval=0.2)
        o = plan.outputs
        out.write(f"  {plan.status}: PV {o.PV.size_kw:.1f} kW, storage {o.ElectricStorage.size_kw:.1f} kW / {o.ElectricStorage.size_kwh:.1f} kWh\n")
        out.write(f"  lifecycle cost ${o.Financial.lcc:,.0f} vs ${o.Financial.lcc_bau:,.0f} business as usual (NPV ${o.Financial.npv:,.0f})\n")

        _step(out, "technical potential (deprecated service; embedded synthetic regions)")
        job = client.technical_potential.submit("rede", "India", "fixlat", excludeProtectedAreas=True, limitBySlope={"max": 5})
        result = job.wait(timeout=30, poll_interval=0.05)
        c = result.cumulative
        out.write(f"  job {job.job_id}: {c.total_nameplate_capacity_mw / 1e3:,.0f} GW on {c.total_land_area_sq_km:,.0f} km², {len(result.regional)} sub-regions\n")
        out.write(f"  deleted map data: {job.delete().map_data_deleted}\n")

    out.write(f"\ndemo finished in {time.perf_counter() - started:.2f} s\n")
    return 0
