//! Every limit in one place. Here: every limit sunflux sets on what it did not make itself —
//! server answers, files, tables, arguments. Real data never comes near these numbers (each
//! constant says why); going past one is a typed error that names the limit, never a crash, a
//! hang or an allocation without bound. docs/design.md ("Limits") lists them; the ones a user may
//! need to raise are per-client settings (`ByteLimits`, the deadline). The child `request_rates`
//! holds the other kind: the request limits the spec states for the live service.

pub mod request_rates;

use std::time::Duration;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;
const GIB: u64 = 1024 * MIB;

/// What a response body holds, for its size cap. Each kind has its own default, configurable
/// per client by its name (`Client(max_bytes={"climate_zip": ...})`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Payload {
    /// Dataset query answers: v1 `all=1` within 2,000 miles lists a few thousand stations (~3 MB).
    DataQuery,
    /// Estimator answers: an hourly JSON year is ~1.5 MB, XML ~4 MB.
    PvEstimate,
    /// One streamed site-year of climate CSV: 12 attributes × 8,784 rows is ~1 MB.
    ClimateCsv,
    /// The JSON answer to a climate download request (a few hundred bytes).
    ClimateRequest,
    /// A download zip: the service caps a request at 175,000,100 values, ~1.4 GB of CSV that
    /// deflates to ~0.5 GB.
    ClimateZip,
    /// Optimizer jobs and results: 35,040-step series of every technology, tens of MB.
    Optimizer,
    /// Technical-potential configurations and job results (tens of kB; map data is a URL).
    TechnicalPotential,
    /// The embedded service's status answer and any other small answer.
    Small,
}

impl Payload {
    pub const ALL: [Payload; 8] = [
        Payload::DataQuery,
        Payload::PvEstimate,
        Payload::ClimateCsv,
        Payload::ClimateRequest,
        Payload::ClimateZip,
        Payload::Optimizer,
        Payload::TechnicalPotential,
        Payload::Small,
    ];

    /// The name a user gives to raise this cap.
    pub fn name(self) -> &'static str {
        match self {
            Payload::DataQuery => "data_query",
            Payload::PvEstimate => "pv_estimate",
            Payload::ClimateCsv => "climate_csv",
            Payload::ClimateRequest => "climate_request",
            Payload::ClimateZip => "climate_zip",
            Payload::Optimizer => "optimizer",
            Payload::TechnicalPotential => "technical_potential",
            Payload::Small => "small",
        }
    }

    pub fn parse(name: &str) -> Option<Payload> {
        Payload::ALL.into_iter().find(|payload| payload.name() == name)
    }

    /// The default cap, bytes: at least 4× the largest real answer of the kind.
    pub const fn default_max_bytes(self) -> u64 {
        match self {
            Payload::DataQuery | Payload::PvEstimate | Payload::ClimateCsv | Payload::TechnicalPotential => 64 * MIB,
            Payload::ClimateRequest | Payload::Small => 4 * MIB,
            Payload::ClimateZip => 2 * GIB,
            Payload::Optimizer => 256 * MIB,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Total bytes the CSVs of one download zip may inflate to: the largest real download is
/// ~1.4 GB of CSV. Configurable under this name, like the response caps.
pub const UNZIPPED_NAME: &str = "climate_unzipped";
pub const DEFAULT_MAX_UNZIPPED_BYTES: u64 = 4 * GIB;

/// One CSV inside a download zip is one site-year (~1 MB); a larger entry is not one.
pub const MAX_ZIP_ENTRY_BYTES: u64 = 64 * MIB;
/// Entries of a download zip: the request cap allows at most 175,000,100 / 8,760 ≈ 20,000
/// site-years of one attribute.
pub const MAX_ZIP_ENTRIES: usize = 100_000;
/// Deflate shrinks real climate CSV about 3×; a zip whose entries inflate to more than this
/// many times its own size (plus [`ZIP_RATIO_ALLOWANCE`]) is a zip bomb.
pub const MAX_ZIP_RATIO: u64 = 100;
/// Inflated bytes always allowed whatever the ratio (small archives of small files).
pub const ZIP_RATIO_ALLOWANCE: u64 = 64 * MIB;

/// Nesting of an XML answer: the deepest real one (`response/outputs/all-stations/all-station/
/// id`) has 5 levels.
pub const MAX_XML_DEPTH: usize = 64;
/// Nesting of a JSON answer: serde_json's own recursion limit, which fails cleanly.
pub const MAX_JSON_DEPTH: usize = 128;

/// Columns of a climate CSV: 5 stamp columns and 12 attributes (NSRDB files have ~50).
pub const MAX_CSV_COLUMNS: usize = 1_000;
/// Data rows of one climate CSV: a leap year at one-minute intervals.
pub const MAX_CSV_ROWS: usize = 366 * 24 * 60;

/// Bytes of a weather file: a one-minute leap year with 50 columns is ~200 MB.
pub const MAX_WEATHER_FILE_BYTES: u64 = GIB;
/// Records of a weather year: a leap year at one-minute steps, the finest a year may have.
pub const MAX_WEATHER_RECORDS: usize = 366 * 24 * 60;
/// Lines of a weather file: [`MAX_WEATHER_RECORDS`] plus header rows and blank lines. Counted
/// before anything is parsed, so a file of many years is refused at the speed of counting its
/// line breaks.
pub const MAX_WEATHER_FILE_LINES: usize = MAX_WEATHER_RECORDS + 1024;

/// Bytes of one entry of the `climate.bulk` cache: an Arrow file of one site-year parsed from
/// a CSV of at most [`Payload::ClimateCsv`]'s 64 MiB, whose values take at least 2 bytes of
/// text each and 8 in Arrow.
pub const MAX_CACHE_ENTRY_BYTES: u64 = 256 * MIB;

/// The default total time of one call, every attempt, backoff and client-side throttle wait
/// included (`timeout` bounds each attempt).
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(600);

/// The embedded service closes a connection whose next request head has not fully arrived after
/// this (idle or half-sent; the client's pool drops idle connections after 15 s, before it).
pub const SERVICE_HEADER_TIMEOUT: Duration = Duration::from_secs(20);
/// ... and a request whose body has not fully arrived after this.
pub const SERVICE_BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// The largest request body the embedded service reads (an optimizer scenario with 35,040-step
/// series is ~3 MB).
pub const SERVICE_MAX_BODY_BYTES: usize = 64 << 20;
/// The most of a refused (too large) request body the embedded service reads and throws away so
/// that its client, still sending, sees the 413 rather than a reset connection; a body declared
/// larger is not read at all.
pub const SERVICE_MAX_DISCARDED_BYTES: u64 = GIB;
/// Distinct paths `LocalService.hits()` keeps apart; further ones share one counter.
pub const SERVICE_MAX_HIT_PATHS: usize = 10_000;

/// The longest id or name sunflux writes into a URL (a run UUID is 36 characters, a station id
/// about 12, a data set slug about 40, a JSONP callback a short identifier): a longer one is not
/// an id, and is refused before anything is sent.
pub const MAX_ID_CHARS: usize = 200;
/// The longest URL sunflux sends, bytes: real ones are a few hundred bytes (a signed download
/// link about 2 kB). The HTTP stack refuses a URI over 65,534 bytes, with the key added to it.
pub const MAX_URL_BYTES: usize = 16 * 1024;

/// The longest duration any argument may give, seconds (about 31 years).
pub const MAX_SECONDS: f64 = 1e9;

/// Response caps per payload kind, plus the inflated size of a download zip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByteLimits {
    response: [u64; Payload::ALL.len()],
    pub unzipped: u64,
}

impl Default for ByteLimits {
    fn default() -> Self {
        ByteLimits { response: Payload::ALL.map(Payload::default_max_bytes), unzipped: DEFAULT_MAX_UNZIPPED_BYTES }
    }
}

impl ByteLimits {
    pub fn response(&self, payload: Payload) -> u64 {
        self.response.get(payload.index()).copied().unwrap_or(payload.default_max_bytes())
    }

    /// Sets one cap by its name (a payload's or `climate_unzipped`); an unknown name or a value
    /// below 1 is a problem for the caller's message.
    pub fn set(&mut self, name: &str, bytes: u64) -> Result<(), String> {
        if bytes == 0 {
            return Err(format!("max_bytes[{name:?}] must be at least 1"));
        }
        if name == UNZIPPED_NAME {
            self.unzipped = bytes;
            return Ok(());
        }
        let payload = Payload::parse(name).ok_or_else(|| {
            let names: Vec<&str> = Payload::ALL.iter().map(|p| p.name()).chain([UNZIPPED_NAME]).collect();
            format!("max_bytes has no limit {name:?} (use {})", names.join(", "))
        })?;
        if let Some(slot) = self.response.get_mut(payload.index()) {
            *slot = bytes;
        }
        Ok(())
    }

    /// Every cap by name, bytes (for documentation and tests).
    pub fn named(&self) -> Vec<(&'static str, u64)> {
        Payload::ALL.iter().map(|p| (p.name(), self.response(*p))).chain([(UNZIPPED_NAME, self.unzipped)]).collect()
    }
}

/// A duration given in seconds by a user: finite, not negative, at most [`MAX_SECONDS`]; with
/// `positive`, above zero. The message names the argument.
pub fn seconds(name: &str, value: f64, positive: bool) -> Result<Duration, String> {
    let low_ok = if positive { value > 0.0 } else { value >= 0.0 };
    if !(value.is_finite() && low_ok) {
        let bound = if positive { "> 0" } else { ">= 0" };
        return Err(format!("{name} must be a number of seconds {bound} (got {value:?})"));
    }
    if value > MAX_SECONDS {
        return Err(format!("{name} must be at most {MAX_SECONDS:e} seconds (about 31 years; got {value:?})"));
    }
    Duration::try_from_secs_f64(value).map_err(|e| format!("{name}: {e} (got {value:?})"))
}

/// An id or name that goes into a URL: at most [`MAX_ID_CHARS`] characters. The message names
/// the argument and the length, never the value.
pub fn id_length(name: &str, text: &str) -> Result<(), String> {
    let length = text.chars().count();
    if length > MAX_ID_CHARS {
        return Err(format!("{name} must be at most {MAX_ID_CHARS} characters (got {length}): it is not an id the service gave"));
    }
    Ok(())
}

/// A URL sunflux is about to send: at most [`MAX_URL_BYTES`]. `what` names it in the message.
pub fn url_length(what: &str, url: &str) -> Result<(), String> {
    if url.len() > MAX_URL_BYTES {
        return Err(format!("{what} is {} bytes long, more than the {MAX_URL_BYTES} a request URL may hold", url.len()));
    }
    Ok(())
}

/// A duration from seconds that came from elsewhere (a header, a computation): clamped to
/// 0..=[`MAX_SECONDS`], NaN as zero. Never panics.
pub fn clamped_seconds(value: f64) -> Duration {
    let clamped = if value.is_nan() { 0.0 } else { value.clamp(0.0, MAX_SECONDS) };
    Duration::try_from_secs_f64(clamped).unwrap_or(Duration::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_refuse_what_a_duration_cannot_hold() {
        assert_eq!(seconds("t", 1.5, true), Ok(Duration::from_millis(1500)));
        assert_eq!(seconds("t", 0.0, false), Ok(Duration::ZERO));
        for bad in [f64::NAN, f64::INFINITY, -1.0, 1e20, 1e300] {
            let message = seconds("timeout", bad, false).unwrap_err();
            assert!(message.starts_with("timeout must be"), "{message}");
        }
        assert!(seconds("t", 0.0, true).is_err());
        assert_eq!(clamped_seconds(f64::NAN), Duration::ZERO);
        assert_eq!(clamped_seconds(-3.0), Duration::ZERO);
        assert_eq!(clamped_seconds(1e300), Duration::from_secs(1_000_000_000));
    }

    #[test]
    fn ids_and_urls_have_a_length_limit() {
        assert_eq!(id_length("job_id", &"a".repeat(MAX_ID_CHARS)), Ok(()));
        let message = id_length("job_id", &"a".repeat(100_000)).unwrap_err();
        assert!(message.starts_with("job_id must be at most 200 characters (got 100000)"), "{message}");
        assert_eq!(url_length("download_url", &"u".repeat(MAX_URL_BYTES)), Ok(()));
        assert!(url_length("download_url", &"u".repeat(MAX_URL_BYTES + 1)).unwrap_err().starts_with("download_url is 16385 bytes long"));
    }

    #[test]
    fn byte_limits_are_set_by_name() {
        let mut limits = ByteLimits::default();
        assert_eq!(limits.response(Payload::ClimateZip), 2 * GIB);
        limits.set("climate_zip", 10).unwrap();
        limits.set("climate_unzipped", 20).unwrap();
        assert_eq!(limits.response(Payload::ClimateZip), 10);
        assert_eq!(limits.unzipped, 20);
        assert!(limits.set("nothing", 1).unwrap_err().contains("climate_unzipped"));
        assert!(limits.set("small", 0).is_err());
        assert_eq!(limits.named().len(), Payload::ALL.len() + 1);
    }
}
