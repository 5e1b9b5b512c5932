"""`sunflux.distributed.bulk_download` through a real two-process `LocalCluster` against the
embedded service: the service's own limits (the spec's, with its daily quota set to exactly the
number of site-years) refuse any request closer than the spec's interval to the previous one
(within the service's tolerated jitter), any over the in-flight cap and any duplicate, and the
workers' clients do not retry, so one refusal fails the run; the service's hit counter shows what
was sent. Also: a rerun on a filled cache sends nothing, a damaged entry is downloaded again and
a writer's leftovers are never read (cache behind an fsspec URL), a task retried after its worker
died does not download again what it had cached, and the configuration shows its key nowhere.
"""

from __future__ import annotations

import os
import pickle
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.markers import requires_dask

import sunflux as sf

pytestmark = requires_dask

SLUG = "ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5"
EMAIL = "analyst@example.org"
CSV_PATH = f"/api/climate/ncdb/v2/climate/{SLUG}-download.csv"
ATTRIBUTES = ("ghi", "dni", "dhi", "temperature_2m")


def site_years(sites: int, years: tuple[int, ...] = (2010, 2011)) -> list[Any]:
    import sunflux.distributed as sd

    return [
        sd.CsvRequest(SLUG, 33.0 + 0.7 * site, -104.0 + 0.9 * site, year, EMAIL, attributes=ATTRIBUTES)
        for site in range(sites)
        for year in years
    ]


def csv_hits(service: sf.LocalService) -> int:
    return service.hits().get(CSV_PATH, 0)


@pytest.mark.slow
def test_without_a_dask_client_a_local_cluster_is_made(tmp_path: Path) -> None:
    import sunflux.distributed as sd
    from distributed import default_client

    with pytest.raises(ValueError):
        default_client()  # no client in this process: bulk_download makes its own cluster
    with sf.LocalService() as service:
        limits = {"climate_csv": sf.ServiceLimits(min_interval=0.1, in_flight=20)}
        config = sd.ClientConfig(api_key=service.api_key, base_url=service.base_url, routes="spec", limits=limits)
        frame = sd.bulk_download(config, site_years(1), tmp_path)
        assert csv_hits(service) == 2
    assert len(frame.compute()) == 8760 * 2  # the cluster is gone; the cache is read here


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Any]:
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0") as cluster, Client(cluster) as client:
        yield client


@pytest.mark.slow
def test_spec_limits_hold_across_two_workers_and_a_rerun_sends_nothing(dask_client: Any, tmp_path: Path) -> None:
    import sunflux.distributed as sd

    requests = site_years(10)  # 20 site-years
    service = sf.LocalService(limits="spec", climate=sf.ClimateSettings(csv_per_day=len(requests)))
    with service:
        config = sd.ClientConfig(api_key=service.api_key, base_url=service.base_url, routes="spec", retries=0)
        started = time.monotonic()
        frame = sd.bulk_download(config, requests, tmp_path / "cache", dask_client=dask_client)
        took = time.monotonic() - started
        # One request per site-year: no 429 (the workers do not retry, so a refusal would have
        # failed the run), no duplicate, and the daily quota, set to exactly 20, was not passed.
        assert csv_hits(service) == len(requests)
        assert took >= (len(requests) - 1) * 1.0 * 0.9, "sent faster than one request per second"
        assert len(os.listdir(tmp_path / "cache")) == len(requests)

        result = frame.compute()
        assert len(result) == 8760 * len(requests)
        assert sorted(result["request"].unique()) == list(range(len(requests)))
        first = result[result["request"] == 3]
        with sf.LocalService() as other:  # the synthetic weather is a function of the site alone
            expected = other.client().climate.download_csv(
                SLUG, lat=requests[3].lat, lon=requests[3].lon, year=requests[3].year, email=EMAIL, attributes=list(ATTRIBUTES)
            ).data.to_pandas()
        for column in ("timestamp", *ATTRIBUTES):
            assert (first[column].to_numpy() == expected[column].to_numpy()).all()
        assert set(first["year"]) == {requests[3].year} and set(first["lat"]) == {requests[3].lat}

        again = sd.bulk_download(config, requests, tmp_path / "cache", dask_client=dask_client)
        assert csv_hits(service) == len(requests), "a rerun on a filled cache sent requests"
        assert len(again.compute()) == len(result)


@pytest.mark.slow
def test_the_rolling_window_holds_across_workers(dask_client: Any, tmp_path: Path) -> None:
    """A scaled-down rolling cap (4 per 2 s) booked by both workers: no 2-second window of the
    booked sends holds more than 4, and the run takes as long as the cap requires. The in-flight
    cap is 1 for the cluster and for the service, which refuses a second stream at once."""
    import sunflux.distributed as sd

    with sf.LocalService(climate=sf.ClimateSettings(in_flight=1)) as service:
        limits = {"climate_csv": sf.ServiceLimits(per_window=4, window=2.0, min_interval=0.05, in_flight=1)}
        config = sd.ClientConfig(api_key=service.api_key, base_url=service.base_url, routes="spec", retries=0, limits=limits)
        requests = site_years(5)  # 10 site-years: three windows
        started = time.monotonic()
        sd.bulk_download(config, requests, tmp_path / "cache", dask_client=dask_client)
        assert time.monotonic() - started >= 4.0
        assert csv_hits(service) == len(requests)


@pytest.mark.slow
def test_booked_sends_keep_the_interval_and_the_rolling_window(dask_client: Any) -> None:
    """The booking itself, from several threads at once: every booked send is at least the
    interval after the one before, and no window holds more than its cap."""
    from concurrent.futures import ThreadPoolExecutor

    from sunflux.distributed._download import _ClusterLimits

    limits = _ClusterLimits(name=f"sunflux-test-{uuid.uuid4().hex}", interval=0.05, per_window=4, window=2.0, in_flight=None)
    with ThreadPoolExecutor(4) as pool:
        sends = sorted(pool.map(lambda _: limits.book(), range(12)))
    close = 1e-6  # wall-clock seconds since 1970 carry about 7 decimals
    assert all(later - earlier >= 0.05 - close for earlier, later in zip(sends, sends[1:]))
    assert all(sends[i + 4] - sends[i] >= 2.0 - close for i in range(len(sends) - 4))
    assert sends[-1] - sends[0] >= 4.0


@pytest.mark.slow
def test_damaged_entries_are_downloaded_again_and_leftovers_never_read(dask_client: Any, tmp_path: Path) -> None:
    """Through an fsspec URL: a flipped byte or a cut copy fails its checksum and is fetched
    again; a writer's temporary file (a worker killed while writing) is ignored."""
    import sunflux.distributed as sd

    folder = tmp_path / "cache"
    with sf.LocalService() as service:
        limits = {"climate_csv": sf.ServiceLimits(min_interval=0.1, in_flight=20)}
        config = sd.ClientConfig(api_key=service.api_key, base_url=service.base_url, routes="spec", retries=0, limits=limits)
        requests = site_years(3)
        sd.bulk_download(config, requests, f"file://{folder}", dask_client=dask_client)
        assert csv_hits(service) == 6
        entries = sorted(folder.iterdir())
        flipped = bytearray(entries[0].read_bytes())
        flipped[len(flipped) // 2] ^= 0xFF
        entries[0].write_bytes(bytes(flipped))
        entries[1].write_bytes(entries[1].read_bytes()[:1000])
        (folder / f"{entries[2].name}.4242.1.part").write_bytes(b"half of an entry")

        frame = sd.bulk_download(config, requests, f"file://{folder}", dask_client=dask_client)
        assert csv_hits(service) == 6 + 2
        assert len(frame.compute()) == 8760 * 6


@pytest.mark.slow
def test_a_task_retried_after_its_worker_died_does_not_download_again(dask_client: Any, tmp_path: Path) -> None:
    """The first worker to finish a download is killed (SIGKILL) after writing its entry and
    before the scheduler hears of it: Dask runs that task again elsewhere, which finds the
    entry. Every site-year is requested exactly once and the result is complete."""
    import sunflux.distributed as sd
    from distributed import WorkerPlugin

    marker = str(tmp_path / "killed")

    class KillAfterFirstDownload(WorkerPlugin):  # defined here so that it pickles by value
        name = "sunflux-kill-after-download"

        def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
            if finish == "memory" and str(key).startswith("sunflux-csv-"):
                try:
                    os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                except FileExistsError:
                    return
                os.kill(os.getpid(), signal.SIGKILL)

    with sf.LocalService() as service:
        limits = {"climate_csv": sf.ServiceLimits(min_interval=0.2, in_flight=20)}
        config = sd.ClientConfig(api_key=service.api_key, base_url=service.base_url, routes="spec", retries=0, limits=limits)
        requests = site_years(4)
        dask_client.register_plugin(KillAfterFirstDownload())
        try:
            frame = sd.bulk_download(config, requests, tmp_path / "cache", dask_client=dask_client)
        finally:
            dask_client.unregister_worker_plugin(KillAfterFirstDownload.name)
            dask_client.wait_for_workers(2, timeout=60)
        assert os.path.exists(marker), "a worker was killed during the run"
        assert csv_hits(service) == len(requests)
        assert len(frame.compute()) == 8760 * len(requests)


def test_the_config_pickles_and_shows_its_key_nowhere() -> None:
    import sunflux.distributed as sd

    key = "SeNtInElKeY0123456789abcdefghijklmnopqrs"
    config = sd.ClientConfig(api_key=key, base_url="http://127.0.0.1:9", routes="spec")
    for text in (repr(config), str(config), repr(vars(config)), str(config.api_key), f"{config.api_key}"):
        assert key not in text and "***" in text
    copy = pickle.loads(pickle.dumps(config))
    assert copy == config and hash(copy) == hash(config)
    assert copy.api_key.reveal() == key
    assert sd.ClientConfig().api_key is None


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"client_config": {"api_key": "k"}}, "client_config must be a sunflux.distributed.ClientConfig"),
        ({"requests": "nope"}, "requests must be a list"),
        ({"requests": []}, "requests is empty"),
        ({"requests": [{"dataset": SLUG, "lat": 35.0}]}, "requests[0]: "),
        ({"requests": [(SLUG, 35.0, -100.0, 2010, EMAIL)]}, "requests[0]: a CsvRequest or a mapping, not tuple"),
        ({"cache": 42}, "cache must be a directory path or an fsspec URL"),
    ],
)
def test_bad_arguments_raise_before_anything_runs(arguments: dict[str, Any], message: str, tmp_path: Path) -> None:
    import sunflux.distributed as sd

    call: dict[str, Any] = {
        "client_config": sd.ClientConfig(api_key="k" * 40, base_url="http://127.0.0.1:9", routes="spec"),
        "requests": site_years(1),
        "cache": tmp_path,
    }
    call.update(arguments)
    with pytest.raises(sf.ParameterError) as raised:
        sd.bulk_download(call["client_config"], call["requests"], call["cache"])
    assert message in str(raised.value)


def test_every_bad_request_is_named_at_once(tmp_path: Path) -> None:
    import sunflux.distributed as sd

    config = sd.ClientConfig(api_key="k" * 40, base_url="http://127.0.0.1:9", routes="spec")
    requests = [
        sd.CsvRequest(SLUG, 35.0, -100.0, 1999, EMAIL),
        sd.CsvRequest(SLUG, 135.0, -100.0, 2010, EMAIL),
        {"dataset": SLUG, "lat": 35.0, "lon": -100.0, "year": 2010, "email": "not-an-address"},
    ]
    with pytest.raises(sf.ParameterError) as raised:
        sd.bulk_download(config, requests, tmp_path)
    problems = "\n".join(map(str, raised.value.errors))
    assert "requests[0]" in problems and "requests[1]" in problems and "requests[2]" in problems
    assert not any(tmp_path.iterdir()), "nothing is written for a refused call"


def test_a_config_key_of_the_wrong_length_is_refused_without_echoing_it(tmp_path: Path) -> None:
    import sunflux.distributed as sd

    short = "SeNtInElKeY0123456789abcdefghijklmnop"
    with pytest.raises(sf.ParameterError) as raised:
        sd.bulk_download(sd.ClientConfig(api_key=short, base_url="http://127.0.0.1:9"), site_years(1), tmp_path)
    assert short not in str(raised.value)
    with pytest.raises(sf.ParameterError, match="limits"):
        sd.ClientConfig(limits={"climate_csv": {"min_interval": 1.0}})
    with pytest.raises(sf.ParameterError, match="limits must be a mapping"):
        sd.ClientConfig(limits=[1.0])
    with pytest.raises(sf.ParameterError, match="api_key must be a string"):
        sd.ClientConfig(api_key=1234)


@pytest.mark.slow
def test_every_attempt_is_booked_for_the_cluster(dask_client: Any, tmp_path: Path) -> None:
    """Injected 500 and 503 answers are retried by bulk_download, not by the transport: every
    request that reached the service, retries included, holds a booking in the cluster's log."""
    import sunflux.distributed as sd
    from sunflux.distributed._download import _cluster_limits

    with sf.LocalService(faults=sf.Faults(rate=0.4, seed=3, kinds=("500", "503"))) as service:
        limits = {"climate_csv": sf.ServiceLimits(min_interval=0.05, in_flight=20)}
        config = sd.ClientConfig(
            api_key=service.api_key, base_url=service.base_url, routes="spec", retries=8, backoff=0.05, limits=limits
        )
        requests = site_years(3)
        frame = sd.bulk_download(config, requests, tmp_path / "cache", dask_client=dask_client)
        hits = csv_hits(service)
        name = _cluster_limits(config, config.client()).name
    assert hits > len(requests), "some answers were faults"
    assert len(dask_client.get_metadata([name, "sends"])) == hits
    assert len(frame.compute()) == 8760 * len(requests)


@pytest.mark.slow
def test_climate_bulk_takes_an_fsspec_url(service: sf.LocalService, client: sf.Client, tmp_path: Path) -> None:
    url = f"file://{tmp_path}/cache"
    points = [(35.0, -100.0), (36.0, -101.0)]
    first = client.climate.bulk(SLUG, points=points, years=[2010], email=EMAIL, attributes=["ghi"], cache_dir=url, progress=False)
    hits = csv_hits(service)
    again = client.climate.bulk(SLUG, points=points, years=[2010], email=EMAIL, attributes=["ghi"], cache_dir=url, progress=False)
    assert csv_hits(service) == hits
    assert again.equals(first)
    assert len(list((tmp_path / "cache").iterdir())) == 2


@pytest.mark.slow
def test_a_refused_key_fails_the_run_without_showing_the_key(dask_client: Any, tmp_path: Path) -> None:
    """A key the service does not know, sent in the query string: the AuthError comes back from
    the worker at once (not retried) and holds the key nowhere."""
    import sunflux.distributed as sd

    wrong = "SeNtInElKeY0123456789abcdefghijklmnopqrs"
    with sf.LocalService() as service:
        config = sd.ClientConfig(api_key=wrong, base_url=service.base_url, routes="spec", auth="query")
        with pytest.raises(sf.AuthError) as raised:
            sd.bulk_download(config, site_years(1), tmp_path / "cache", dask_client=dask_client)
        assert csv_hits(service) == 0  # refused at the gateway, which counts authenticated requests only
        # The same site-years again with the right key (the failed run's tasks were cancelled,
        # although the traceback above still holds their futures).
        fixed = sd.ClientConfig(api_key=service.api_key, base_url=service.base_url, routes="spec", auth="query")
        frame = sd.bulk_download(fixed, site_years(1), tmp_path / "cache", dask_client=dask_client)
        assert csv_hits(service) == 2 and len(frame.compute()) == 8760 * 2
    for text in (str(raised.value), repr(raised.value), repr(raised.value.args), str(raised.value.url)):
        assert wrong not in text
