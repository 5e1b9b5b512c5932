//! The embedded service's deterministic weather generator: physically plausible hourly series
//! for any site and year, shared by the climate download and the PV estimator endpoint. It is
//! synthetic (no measured data); responses that carry it say so.
//!
//! Model (per time stamp, all values are instants at the stamp):
//! - Every quantity is a function of the absolute instant and the site's seed, never of where a
//!   series starts: random inputs are smooth noise tracks whose knots (every 2 h … 72 h) are
//!   drawn from SplitMix64 keyed by (seed, channel, knot index). A series in local standard
//!   time is therefore exactly the UTC series shifted by the offset, and years join seamlessly.
//! - Sun: refraction-corrected zenith from the PVWatts engine's SPA (`pvwatts::solarpos`),
//!   evaluated at the UTC instant. Extraterrestrial normal irradiance from Spencer's (1971)
//!   eccentricity series with a 1361 W/m² solar constant; relative air mass after Kasten & Young
//!   (1989); clear-sky beam transmittance after Meinel & Meinel (1976) with Laue's (1970)
//!   altitude correction; clear-sky diffuse after Liu & Jordan (1960), τd = 0.271 − 0.294 τb.
//! - Clouds: cover c ∈ (0, 1) is a logistic of three noise octaves (24 h, 6 h, 2 h) around a
//!   climatological mean set by latitude (wet equatorial belt, dry subtropics near 25°, cloudy
//!   storm tracks near 58°), season (cloudier mid-latitude winters) and a per-site bias. Global
//!   horizontal follows Kasten & Czeplak (1980), GHI = GHI_clear (1 − 0.75 c^3.4); the beam
//!   is DNI = DNI_clear (1 − c)^1.5 (this generator's choice); DHI = GHI − DNI cos z, and GHI is
//!   then recomputed as DNI cos z + DHI so the closure holds to rounding. All three are 0 when
//!   the sun is below the horizon.
//! - Temperature: an annual mean falling with latitude (28 − 0.0072 lat² °C), warmer in the
//!   dry subtropics, 4.8 °C/km cooler with elevation; a seasonal cycle (amplitude 0.6 + 0.28
//!   |lat| °C, coldest ~20 January in the north, ~20 July in the south); a 72 h synoptic
//!   anomaly; a diurnal cycle peaking at 15:00 local solar time, damped by clouds.
//! - Humidity: dew point = daily temperature − a depression that grows with dryness, clear sky
//!   and elevation; RH = 100 e_s(T_d)/e_s(T) with the Magnus form of Alduchov & Eskridge (1996), clamped
//!   to 2…100 %.
//! - Pressure: ISA barometric formula for the elevation plus a 48 h synoptic term (mbar).
//! - Wind: 10 m speed lognormal around a latitude climatology (mid-latitude jets, trades,
//!   windier winters, windier heights) with an afternoon maximum; 100 m and 200 m by the power
//!   law v(z) = v10 (z/10)^α, α from 0.05 (sunny afternoon) to 0.23 (clear night), so speeds
//!   always grow with height. Directions (meteorological, from where the wind blows, degrees
//!   clockwise from north) wander around the prevailing direction of the latitude belt (trades,
//!   westerlies, polar easterlies) and veer with height in the north (back in the south).
//!
//! Time stamps: the download stamps rows at minute 0 of each hour (instants); the PV
//! estimator's `tmy_year` stamps them at hh:30 local standard time, the centre of the hour, to
//! stand in for hour averages.

use std::f64::consts::PI;

use crate::calendar::{civil_from_days, days_from_civil, is_leap_year};
use crate::spec::vocabulary::Attribute;
use crate::embedded::prng::SplitMix64;
use crate::pvwatts::solarpos::{Observer, SolarCalculator};

/// The site a series is generated for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SiteSpec {
    /// Degrees north.
    pub lat: f64,
    /// Degrees east.
    pub lon: f64,
    /// Metres above sea level.
    pub elevation_m: f64,
    /// Standard-time offset from UTC, hours (no daylight saving).
    pub tz_offset_hours: f64,
    /// Seed of every random input; the same seed gives the same weather.
    pub seed: u64,
}

/// Which clock the rows are stamped in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeBase {
    Utc,
    /// The site's standard time (`SiteSpec::tz_offset_hours`), no daylight saving.
    LocalStandard,
}

/// How a series is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeriesOptions {
    pub time_base: TimeBase,
    /// Keep February 29 in leap years (otherwise the year has 8760 rows).
    pub leap_day: bool,
    /// Minute of each hourly stamp (0 for the download, 30 for hour-centred values).
    pub minute: u32,
}

impl SeriesOptions {
    /// The climate download's layout: stamps at minute 0, UTC or local standard time.
    pub fn download(utc: bool, leap_day: bool) -> SeriesOptions {
        SeriesOptions { time_base: if utc { TimeBase::Utc } else { TimeBase::LocalStandard }, leap_day, minute: 0 }
    }
}

/// One year of hourly weather. Stamps are in the clock of `stamp_offset_hours` (0 for UTC).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClimateSeries {
    /// Offset of the stamps from UTC, hours.
    pub stamp_offset_hours: f64,
    pub year: Vec<i32>,
    pub month: Vec<i32>,
    pub day: Vec<i32>,
    pub hour: Vec<i32>,
    pub minute: Vec<i32>,
    /// The UTC instant of each row, seconds since 1970-01-01.
    pub unix_seconds: Vec<i64>,
    /// Refraction-corrected solar zenith angle, degrees.
    pub zenith_deg: Vec<f64>,
    /// Cloud cover fraction, 0–1.
    pub cloud_cover: Vec<f64>,
    /// Global horizontal irradiance, W/m².
    pub ghi: Vec<f64>,
    /// Direct normal irradiance, W/m².
    pub dni: Vec<f64>,
    /// Diffuse horizontal irradiance, W/m².
    pub dhi: Vec<f64>,
    /// Air temperature at 2 m, °C.
    pub temperature_2m: Vec<f64>,
    /// Relative humidity at 2 m, %.
    pub relative_humidity_2m: Vec<f64>,
    /// Surface pressure, mbar.
    pub pressure_0m: Vec<f64>,
    /// Wind speed at 10, 100 and 200 m, m/s.
    pub wind_speed: [Vec<f64>; 3],
    /// Wind direction at 10, 100 and 200 m, degrees from north (where the wind comes from).
    pub wind_direction: [Vec<f64>; 3],
}

impl ClimateSeries {
    pub fn len(&self) -> usize {
        self.unix_seconds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.unix_seconds.is_empty()
    }

    /// The values of one download attribute.
    pub fn values(&self, attribute: Attribute) -> &[f64] {
        match attribute {
            Attribute::Pressure0m => &self.pressure_0m,
            Attribute::Dhi => &self.dhi,
            Attribute::Dni => &self.dni,
            Attribute::Ghi => &self.ghi,
            Attribute::RelativeHumidity2m => &self.relative_humidity_2m,
            Attribute::Temperature2m => &self.temperature_2m,
            Attribute::WindDirection10m => &self.wind_direction[0],
            Attribute::WindDirection100m => &self.wind_direction[1],
            Attribute::WindDirection200m => &self.wind_direction[2],
            Attribute::WindSpeed10m => &self.wind_speed[0],
            Attribute::WindSpeed100m => &self.wind_speed[1],
            Attribute::WindSpeed200m => &self.wind_speed[2],
        }
    }
}

/// Hourly columns for the PV estimator: one 365-day year in local standard time, stamped at
/// hh:30 (hour-centre values standing in for hour averages; give the engine no minute column).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TmyColumns {
    /// Degrees north.
    pub lat: f64,
    /// Degrees east.
    pub lon: f64,
    /// Standard-time offset of the stamps, hours.
    pub tz: f64,
    /// Metres.
    pub elevation: f64,
    pub year: Vec<i32>,
    pub month: Vec<u8>,
    pub day: Vec<u8>,
    /// 0–23, local standard time.
    pub hour: Vec<u8>,
    /// Global horizontal irradiance, W/m².
    pub gh: Vec<f64>,
    /// Direct normal irradiance, W/m².
    pub dn: Vec<f64>,
    /// Diffuse horizontal irradiance, W/m².
    pub df: Vec<f64>,
    /// Dry-bulb temperature, °C.
    pub tdry: Vec<f64>,
    /// Wind speed at 10 m, m/s.
    pub wspd: Vec<f64>,
    /// Pressure, mbar.
    pub pressure: Vec<f64>,
    /// Relative humidity, %.
    pub rh: Vec<f64>,
}

/// One year (8760 rows, 8784 with `leap_day` in a leap year) of hourly weather for a site.
/// The same (seed, site, year, options) always gives the same series.
pub fn generate(site: &SiteSpec, year: i32, options: &SeriesOptions) -> ClimateSeries {
    let offset_hours = match options.time_base {
        TimeBase::Utc => 0.0,
        TimeBase::LocalStandard => site.tz_offset_hours,
    };
    let mut series = stamps(year, options, offset_hours);
    let (Some(&first), Some(&last)) = (series.unix_seconds.first(), series.unix_seconds.last()) else {
        return series;
    };
    let climate = SiteClimate::new(site);
    let tracks = NoiseTracks::new(site.seed, first as f64 / 3600.0, last as f64 / 3600.0);
    let mut sun = SolarCalculator::new(Observer {
        latitude: site.lat,
        longitude: site.lon,
        tz: 0.0,
        elevation: site.elevation_m.max(0.0),
    });
    let rows = series.len();
    reserve_columns(&mut series, rows);
    for index in 0..rows {
        let hour = weather_at(&climate, &tracks, &mut sun, series.unix_seconds[index]);
        push_hour(&mut series, &hour);
    }
    series
}

/// The PV estimator's weather year: `generate` in local standard time at hh:30 without
/// February 29, as plain columns.
pub fn tmy_year(site: &SiteSpec, year: i32) -> TmyColumns {
    let options = SeriesOptions { time_base: TimeBase::LocalStandard, leap_day: false, minute: 30 };
    let series = generate(site, year, &options);
    let narrow = |values: &[i32]| values.iter().map(|&v| v.clamp(0, 255) as u8).collect::<Vec<u8>>();
    let [wind_10m, _, _] = series.wind_speed;
    TmyColumns {
        lat: site.lat,
        lon: site.lon,
        tz: site.tz_offset_hours,
        elevation: site.elevation_m,
        month: narrow(&series.month),
        day: narrow(&series.day),
        hour: narrow(&series.hour),
        year: series.year,
        gh: series.ghi,
        dn: series.dni,
        df: series.dhi,
        tdry: series.temperature_2m,
        wspd: wind_10m,
        pressure: series.pressure_0m,
        rh: series.relative_humidity_2m,
    }
}

/// The rows' stamps and UTC instants: every day of `year` in the stamps' clock (February 29
/// only with `leap_day`), one row per hour at `options.minute`.
fn stamps(year: i32, options: &SeriesOptions, offset_hours: f64) -> ClimateSeries {
    let offset_s = (offset_hours * 3600.0).round() as i64;
    let first_day = days_from_civil(year, 1, 1);
    let last_day = days_from_civil(year + 1, 1, 1);
    let rows = (last_day - first_day) as usize * 24;
    let mut series = ClimateSeries { stamp_offset_hours: offset_hours, ..ClimateSeries::default() };
    for column in [&mut series.year, &mut series.month, &mut series.day, &mut series.hour, &mut series.minute] {
        column.reserve(rows);
    }
    series.unix_seconds.reserve(rows);
    let minute = options.minute.min(59);
    for days in first_day..last_day {
        let (y, m, d) = civil_from_days(days);
        if m == 2 && d == 29 && !(options.leap_day && is_leap_year(y)) {
            continue;
        }
        for hour in 0..24 {
            series.year.push(y);
            series.month.push(m as i32);
            series.day.push(d as i32);
            series.hour.push(hour);
            series.minute.push(minute as i32);
            series.unix_seconds.push(days * 86_400 + i64::from(hour) * 3600 + i64::from(minute) * 60 - offset_s);
        }
    }
    series
}

fn reserve_columns(series: &mut ClimateSeries, rows: usize) {
    let [s10, s100, s200] = &mut series.wind_speed;
    let [d10, d100, d200] = &mut series.wind_direction;
    for column in [
        &mut series.zenith_deg,
        &mut series.cloud_cover,
        &mut series.ghi,
        &mut series.dni,
        &mut series.dhi,
        &mut series.temperature_2m,
        &mut series.relative_humidity_2m,
        &mut series.pressure_0m,
        s10,
        s100,
        s200,
        d10,
        d100,
        d200,
    ] {
        column.reserve(rows);
    }
}

fn push_hour(series: &mut ClimateSeries, hour: &HourWeather) {
    series.zenith_deg.push(hour.zenith_deg);
    series.cloud_cover.push(hour.cloud_cover);
    series.ghi.push(hour.ghi);
    series.dni.push(hour.dni);
    series.dhi.push(hour.dhi);
    series.temperature_2m.push(hour.temperature);
    series.relative_humidity_2m.push(hour.relative_humidity);
    series.pressure_0m.push(hour.pressure);
    for level in 0..3 {
        series.wind_speed[level].push(hour.wind_speed[level]);
        series.wind_direction[level].push(hour.wind_direction[level]);
    }
}

/// Everything generated for one instant.
#[derive(Debug, Clone, Copy, PartialEq)]
struct HourWeather {
    zenith_deg: f64,
    cloud_cover: f64,
    ghi: f64,
    dni: f64,
    dhi: f64,
    temperature: f64,
    relative_humidity: f64,
    pressure: f64,
    wind_speed: [f64; 3],
    wind_direction: [f64; 3],
}

/// Length of the mean tropical year, days.
const TROPICAL_YEAR_DAYS: f64 = 365.2422;
/// Solar constant, W/m² (Kopp & Lean, 2011).
const SOLAR_CONSTANT: f64 = 1361.0;
/// Heights of the three wind levels, m.
const WIND_HEIGHTS_M: [f64; 3] = [10.0, 100.0, 200.0];

/// The per-site constants of the climatology (latitude belts, elevation, seeded biases).
#[derive(Debug, Clone, Copy)]
struct SiteClimate {
    lon: f64,
    /// +1 north of the equator, −1 south.
    hemisphere: f64,
    elevation_km: f64,
    /// Undisturbed station pressure, mbar.
    base_pressure: f64,
    /// 0 (humid) … 1 (desert).
    dryness: f64,
    /// Annual mean temperature, °C.
    mean_temperature: f64,
    /// Half the seasonal range, °C.
    seasonal_amplitude: f64,
    /// Half the clear-sky diurnal range, °C.
    diurnal_amplitude: f64,
    /// Standard deviation of the synoptic temperature anomaly, °C.
    synoptic_sd: f64,
    /// Annual-mean cloud cover without the seasonal term.
    cloud_base: f64,
    /// Weight of the seasonal cloud term (mid-latitudes only).
    cloud_season_weight: f64,
    /// Annual mean 10 m wind speed, m/s.
    mean_wind: f64,
    /// Prevailing wind direction, degrees.
    prevailing_direction: f64,
    /// Synoptic pressure standard deviation, mbar.
    pressure_sd: f64,
}

impl SiteClimate {
    fn new(site: &SiteSpec) -> SiteClimate {
        let mut rng = SplitMix64::new(site.seed ^ 0x5EED_C11A_7E00_0001);
        let mut centred = |half_width: f64| (rng.next_f64() - 0.5) * 2.0 * half_width;
        let cloud_bias = centred(0.08);
        let temperature_bias = centred(1.0);
        let dryness_bias = centred(0.15);
        let wind_factor = 1.0 + centred(0.22);
        let direction_bias = centred(20.0);
        let abs_lat = site.lat.abs();
        let bump = |centre: f64, width: f64| (-((abs_lat - centre) / width).powi(2)).exp();
        let elevation_km = site.elevation_m.max(0.0) / 1000.0;
        let dryness = (0.75 * bump(25.0, 9.0) + dryness_bias).clamp(0.0, 1.0);
        SiteClimate {
            lon: site.lon,
            hemisphere: if site.lat < 0.0 { -1.0 } else { 1.0 },
            elevation_km,
            base_pressure: station_pressure_mbar(site.elevation_m),
            dryness,
            mean_temperature: 28.0 - 0.0072 * site.lat * site.lat + 3.0 * dryness - 4.8 * site.elevation_m / 1000.0
                + temperature_bias,
            seasonal_amplitude: 0.6 + 0.28 * abs_lat.min(75.0),
            diurnal_amplitude: 4.0 + 4.0 * dryness + 0.6 * elevation_km,
            synoptic_sd: 1.5 + abs_lat / 20.0,
            cloud_base: 0.52 + 0.14 * bump(0.0, 9.0) - 0.26 * bump(24.0, 9.0) + 0.10 * bump(58.0, 14.0) + cloud_bias,
            cloud_season_weight: 0.07 * logistic((abs_lat - 25.0) / 4.0),
            mean_wind: (3.2 + 1.8 * bump(50.0, 14.0) + 1.2 * bump(15.0, 7.0) + 0.6 * elevation_km) * wind_factor,
            prevailing_direction: prevailing_direction_deg(site.lat) + direction_bias,
            pressure_sd: 4.0 + abs_lat / 10.0,
        }
    }

    /// +1 in the middle of this hemisphere's winter, −1 in mid-summer.
    fn winter(&self, day_of_year: f64) -> f64 {
        self.hemisphere * (2.0 * PI * (day_of_year - 15.0) / TROPICAL_YEAR_DAYS).cos()
    }

    /// Climatological cloud cover for a day of the year, 0.06–0.92.
    fn mean_cloud(&self, day_of_year: f64) -> f64 {
        (self.cloud_base + self.cloud_season_weight * self.winter(day_of_year)).clamp(0.06, 0.92)
    }
}

/// Noise channels (one independent track each).
#[derive(Debug, Clone, Copy)]
#[repr(u64)]
enum Channel {
    CloudDay = 1,
    CloudSixHours,
    CloudTwoHours,
    Temperature,
    Humidity,
    Pressure,
    WindSpeedSlow,
    WindSpeedFast,
    WindDirectionSlow,
    WindDirectionFast,
}

/// The noise tracks of one series.
struct NoiseTracks {
    cloud: [NoiseTrack; 3],
    temperature: NoiseTrack,
    humidity: NoiseTrack,
    pressure: NoiseTrack,
    wind_speed: [NoiseTrack; 2],
    wind_direction: [NoiseTrack; 2],
}

impl NoiseTracks {
    fn new(seed: u64, start_h: f64, end_h: f64) -> NoiseTracks {
        let track = |channel: Channel, period_h: f64| NoiseTrack::new(seed, channel, period_h, start_h, end_h);
        NoiseTracks {
            cloud: [
                track(Channel::CloudDay, 24.0),
                track(Channel::CloudSixHours, 6.0),
                track(Channel::CloudTwoHours, 2.0),
            ],
            temperature: track(Channel::Temperature, 72.0),
            humidity: track(Channel::Humidity, 36.0),
            pressure: track(Channel::Pressure, 48.0),
            wind_speed: [track(Channel::WindSpeedSlow, 30.0), track(Channel::WindSpeedFast, 4.0)],
            wind_direction: [track(Channel::WindDirectionSlow, 48.0), track(Channel::WindDirectionFast, 8.0)],
        }
    }
}

/// Smooth Gaussian noise of one channel: standard-normal knots every `period_h` hours of
/// absolute time, Catmull–Rom interpolated (unit variance at knots, about 0.64 half-way).
struct NoiseTrack {
    period_h: f64,
    first_knot: i64,
    knots: Vec<f64>,
}

impl NoiseTrack {
    fn new(seed: u64, channel: Channel, period_h: f64, start_h: f64, end_h: f64) -> NoiseTrack {
        let first_knot = (start_h / period_h).floor() as i64 - 1;
        let last_knot = (end_h / period_h).floor() as i64 + 2;
        let channel_seed = SplitMix64::new(seed ^ (channel as u64).wrapping_mul(0xD1B5_4A32_D192_ED03)).next_u64();
        let knots = (first_knot..=last_knot).map(|k| knot_value(channel_seed, k)).collect();
        NoiseTrack { period_h, first_knot, knots }
    }

    /// The noise at `t_h` hours since 1970 (0 outside the track's span).
    fn at(&self, t_h: f64) -> f64 {
        let x = t_h / self.period_h;
        let k = x.floor();
        let start = usize::try_from((k as i64).saturating_sub(self.first_knot).saturating_sub(1)).ok();
        match start.and_then(|start| self.knots.get(start..start.checked_add(4)?)) {
            Some(&[p0, p1, p2, p3]) => catmull_rom(p0, p1, p2, p3, x - k),
            _ => 0.0,
        }
    }
}

/// A standard normal value for knot `k` (Box–Muller on two uniforms of a generator keyed by k).
fn knot_value(channel_seed: u64, k: i64) -> f64 {
    let mut rng = SplitMix64::new(channel_seed ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let u1 = 1.0 - rng.next_f64();
    let u2 = rng.next_f64();
    (-2.0 * u1.ln()).sqrt() * (2.0 * PI * u2).cos()
}

/// Catmull–Rom spline through p1 (f = 0) and p2 (f = 1).
fn catmull_rom(p0: f64, p1: f64, p2: f64, p3: f64, f: f64) -> f64 {
    let f2 = f * f;
    0.5 * (2.0 * p1
        + (p2 - p0) * f
        + (2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3) * f2
        + (3.0 * p1 - p0 - 3.0 * p2 + p3) * f2 * f)
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The weather at one UTC instant.
fn weather_at(climate: &SiteClimate, tracks: &NoiseTracks, sun: &mut SolarCalculator, unix_s: i64) -> HourWeather {
    let t_h = unix_s as f64 / 3600.0;
    let day_of_year = continuous_day_of_year(unix_s);
    let solar_hour = (t_h + climate.lon / 15.0).rem_euclid(24.0);
    let afternoon = (2.0 * PI * (solar_hour - 14.0) / 24.0).cos();

    let cloud_noise =
        (0.8 * tracks.cloud[0].at(t_h) + 0.5 * tracks.cloud[1].at(t_h) + 0.3 * tracks.cloud[2].at(t_h)) / 0.99;
    let cloud = cloud_cover(cloud_noise, climate.mean_cloud(day_of_year));

    let seasonal = -climate.hemisphere * (2.0 * PI * (day_of_year - 20.0) / TROPICAL_YEAR_DAYS).cos();
    let daily_temperature = climate.mean_temperature
        + climate.seasonal_amplitude * seasonal
        + climate.synoptic_sd * tracks.temperature.at(t_h);
    let diurnal = (2.0 * PI * (solar_hour - 15.0) / 24.0).cos();
    let temperature = daily_temperature + climate.diurnal_amplitude * (1.0 - 0.6 * cloud) * diurnal;

    let depression = (2.0
        + 16.0 * climate.dryness
        + 4.0 * (1.0 - cloud)
        + 2.0 * climate.elevation_km
        + 2.0 * tracks.humidity.at(t_h))
    .max(0.3);
    let relative_humidity = relative_humidity_percent(temperature, daily_temperature - depression);

    let pressure = climate.base_pressure + climate.pressure_sd * tracks.pressure.at(t_h);

    let (zenith_deg, irradiance) = sun_and_irradiance(climate, sun, unix_s, day_of_year, cloud, pressure, temperature);

    let speed_noise = (0.8 * tracks.wind_speed[0].at(t_h) + 0.45 * tracks.wind_speed[1].at(t_h)) / 0.918;
    let seasonal_wind = 1.0 + 0.12 * climate.winter(day_of_year);
    let speed_10m = climate.mean_wind * seasonal_wind * (0.45 * speed_noise - 0.1).exp() * (1.0 + 0.25 * afternoon);
    let shear = shear_exponent(afternoon, cloud);
    let wind_speed = WIND_HEIGHTS_M.map(|z| speed_10m * (z / 10.0).powf(shear));

    let direction_10m = climate.prevailing_direction
        + 55.0 * tracks.wind_direction[0].at(t_h)
        + 25.0 * tracks.wind_direction[1].at(t_h);
    let veer = climate.hemisphere * (shear - 0.05);
    let wind_direction = [direction_10m, direction_10m + 4.0 + 60.0 * veer, direction_10m + 6.0 + 90.0 * veer]
        .map(|d| d.rem_euclid(360.0));

    HourWeather {
        zenith_deg,
        cloud_cover: cloud,
        ghi: irradiance.ghi,
        dni: irradiance.dni,
        dhi: irradiance.dhi,
        temperature,
        relative_humidity,
        pressure,
        wind_speed,
        wind_direction,
    }
}

/// Day of the year as a continuous number (1.0 at 2000-01-01 00:00 UTC, wrapping every
/// tropical year), so seasonal terms do not jump at New Year.
fn continuous_day_of_year(unix_s: i64) -> f64 {
    let days_since_2000 = unix_s as f64 / 86_400.0 - days_from_civil(2000, 1, 1) as f64;
    days_since_2000.rem_euclid(TROPICAL_YEAR_DAYS) + 1.0
}

/// Cloud cover 0–1 from standard-normal noise and a climatological mean: a logistic whose
/// offset makes its mean over the noise close to `mean_cloud`.
fn cloud_cover(noise: f64, mean_cloud: f64) -> f64 {
    let offset = (mean_cloud / (1.0 - mean_cloud)).ln() / 1.32;
    logistic(2.2 * (noise + offset))
}

/// Power-law shear exponent: 0.14 (neutral) ± 0.09, low on sunny afternoons (convective mixing),
/// high on clear nights (stable layer); clouds pull it toward neutral.
fn shear_exponent(afternoon: f64, cloud: f64) -> f64 {
    0.14 - 0.09 * afternoon * (1.0 - 0.7 * cloud)
}

/// GHI, DNI and DHI in W/m².
#[derive(Debug, Clone, Copy, PartialEq)]
struct Irradiance {
    ghi: f64,
    dni: f64,
    dhi: f64,
}

/// Sun zenith (degrees) at the instant and the all-sky irradiance components.
fn sun_and_irradiance(
    climate: &SiteClimate,
    sun: &mut SolarCalculator,
    unix_s: i64,
    day_of_year: f64,
    cloud: f64,
    pressure_mbar: f64,
    temperature_c: f64,
) -> (f64, Irradiance) {
    let days = unix_s.div_euclid(86_400);
    let seconds = unix_s.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let position = sun.position(
        year,
        month as u8,
        day as u8,
        (seconds / 3600) as i32,
        (seconds % 3600 / 60) as i32,
        pressure_mbar,
        temperature_c,
    );
    let zenith_deg = position.zenith.to_degrees();
    let cos_zenith = position.zenith.cos();
    if cos_zenith <= 0.0 {
        return (zenith_deg, Irradiance { ghi: 0.0, dni: 0.0, dhi: 0.0 });
    }
    let normal = extraterrestrial_normal_w_m2(day_of_year);
    let beam_transmittance = clear_sky_beam_transmittance(relative_air_mass(zenith_deg), climate.elevation_km);
    let dni_clear = normal * beam_transmittance;
    let dhi_clear = normal * cos_zenith * clear_sky_diffuse_transmittance(beam_transmittance);
    let ghi_clear = dni_clear * cos_zenith + dhi_clear;
    let dni = dni_clear * (1.0 - cloud).powf(1.5);
    let ghi_all_sky = ghi_clear * (1.0 - 0.75 * cloud.powf(3.4));
    let dhi = (ghi_all_sky - dni * cos_zenith).max(0.0);
    (zenith_deg, Irradiance { ghi: dni * cos_zenith + dhi, dni, dhi })
}

/// Extraterrestrial normal irradiance, W/m², for a day of the year (1 = January 1).
///
/// Reference: Spencer (1971), "Fourier series representation of the position of the sun",
/// Search 2(5), eccentricity correction factor; solar constant 1361 W/m² (Kopp & Lean, 2011).
pub fn extraterrestrial_normal_w_m2(day_of_year: f64) -> f64 {
    let gamma = 2.0 * PI * (day_of_year - 1.0) / 365.0;
    SOLAR_CONSTANT
        * (1.000_110
            + 0.034_221 * gamma.cos()
            + 0.001_280 * gamma.sin()
            + 0.000_719 * (2.0 * gamma).cos()
            + 0.000_077 * (2.0 * gamma).sin())
}

/// Relative optical air mass for an apparent zenith angle in degrees (≈ 38 at the horizon).
///
/// Reference: Kasten & Young (1989), "Revised optical air mass tables and approximation
/// formula", Applied Optics 28(22).
pub fn relative_air_mass(zenith_deg: f64) -> f64 {
    let zenith = zenith_deg.clamp(0.0, 90.0);
    1.0 / (zenith.to_radians().cos() + 0.505_72 * (96.079_95 - zenith).powf(-1.636_4))
}

/// Clear-sky beam transmittance (DNI / extraterrestrial normal) for a relative air mass and a
/// site elevation in km: 0.7^(AM^0.678) at sea level, raised toward 1 by 0.14 per km.
///
/// Reference: Meinel & Meinel (1976), Applied Solar Energy; altitude term after Laue (1970),
/// "The measurement of solar spectral irradiance at different terrestrial elevations", Solar
/// Energy 13.
pub fn clear_sky_beam_transmittance(air_mass: f64, elevation_km: f64) -> f64 {
    let altitude = (0.14 * elevation_km).clamp(0.0, 0.7);
    (1.0 - altitude) * 0.7f64.powf(air_mass.powf(0.678)) + altitude
}

/// Clear-sky diffuse transmittance (DHI / extraterrestrial horizontal) from the beam
/// transmittance, never negative.
///
/// Reference: Liu & Jordan (1960), "The interrelationship and characteristic distribution of
/// direct, diffuse and total solar radiation", Solar Energy 4(3): τd = 0.271 − 0.294 τb.
pub fn clear_sky_diffuse_transmittance(beam_transmittance: f64) -> f64 {
    (0.271 - 0.294 * beam_transmittance).max(0.0)
}

/// Station pressure in mbar at an elevation in metres (ISA troposphere, 1013.25 mbar at sea
/// level).
///
/// Reference: ICAO (1993), Manual of the ICAO Standard Atmosphere, Doc 7488:
/// p = 1013.25 (1 − 2.25577e-5 h)^5.25588.
pub fn station_pressure_mbar(elevation_m: f64) -> f64 {
    1013.25 * (1.0 - 2.255_77e-5 * elevation_m).max(0.0).powf(5.255_88)
}

/// Saturation vapour pressure over water, hPa, for a temperature in °C.
///
/// Reference: Alduchov & Eskridge (1996), "Improved Magnus form approximation of saturation
/// vapor pressure", J. Appl. Meteor. 35: e_s = 6.1094 exp(17.625 T / (T + 243.04)).
pub fn saturation_vapour_pressure_hpa(temperature_c: f64) -> f64 {
    6.1094 * (17.625 * temperature_c / (temperature_c + 243.04)).exp()
}

/// Relative humidity, %, from air temperature and dew point (°C), clamped to 2–100.
fn relative_humidity_percent(temperature_c: f64, dew_point_c: f64) -> f64 {
    (100.0 * saturation_vapour_pressure_hpa(dew_point_c) / saturation_vapour_pressure_hpa(temperature_c))
        .clamp(2.0, 100.0)
}

/// Prevailing wind direction of a latitude, degrees: trades (NE in the north, SE in the south)
/// below ~28°, westerlies (WSW / WNW) to ~62°, polar easterlies beyond, blended as vectors.
fn prevailing_direction_deg(lat: f64) -> f64 {
    let abs_lat = lat.abs();
    let trade_weight = logistic((28.0 - abs_lat) / 2.0);
    let polar_weight = logistic((abs_lat - 64.0) / 2.0);
    let westerly_weight = (1.0 - trade_weight - polar_weight).max(0.0);
    let (trade, westerly) = if lat >= 0.0 { (60.0f64, 255.0f64) } else { (120.0f64, 285.0f64) };
    let polar = 90.0f64;
    let (x, y) = [(trade_weight, trade), (westerly_weight, westerly), (polar_weight, polar)]
        .iter()
        .fold((0.0, 0.0), |(x, y), &(w, d)| (x + w * d.to_radians().sin(), y + w * d.to_radians().cos()));
    x.atan2(y).to_degrees().rem_euclid(360.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boulder() -> SiteSpec {
        SiteSpec { lat: 40.0, lon: -105.25, elevation_m: 1650.0, tz_offset_hours: -7.0, seed: 42 }
    }

    #[test]
    fn physical_helpers_match_reference_values() {
        assert!((extraterrestrial_normal_w_m2(3.0) - 1361.0 * 1.0343).abs() < 2.0);
        assert!((extraterrestrial_normal_w_m2(185.0) - 1361.0 * 0.9666).abs() < 2.0);
        assert!((relative_air_mass(0.0) - 1.0).abs() < 1e-3);
        assert!((relative_air_mass(60.0) - 1.995).abs() < 0.01);
        assert!((relative_air_mass(90.0) - 37.9).abs() < 0.5);
        assert!((station_pressure_mbar(0.0) - 1013.25).abs() < 1e-9);
        assert!((station_pressure_mbar(1500.0) - 845.6).abs() < 0.5);
        assert!((saturation_vapour_pressure_hpa(20.0) - 23.37).abs() < 0.05);
        assert!((clear_sky_beam_transmittance(1.0, 0.0) - 0.7).abs() < 1e-12);
        assert!((prevailing_direction_deg(45.0) - 255.0).abs() < 1.0);
        assert!((prevailing_direction_deg(10.0) - 60.0).abs() < 1.0);
        assert!((prevailing_direction_deg(-10.0) - 120.0).abs() < 1.0);
    }

    #[test]
    fn noise_depends_on_the_instant_not_the_window() {
        let a = NoiseTrack::new(7, Channel::Temperature, 72.0, 1000.0, 2000.0);
        let b = NoiseTrack::new(7, Channel::Temperature, 72.0, 1500.0, 9000.0);
        for t in [1500.0, 1600.25, 1999.0] {
            assert_eq!(a.at(t), b.at(t));
        }
        assert_eq!(a.at(1.0e9), 0.0, "outside the track");
    }

    #[test]
    fn tmy_year_is_local_hour_centred_and_365_days() {
        let tmy = tmy_year(&boulder(), 2012);
        assert_eq!(tmy.gh.len(), 8760);
        assert_eq!((tmy.month[0], tmy.day[0], tmy.hour[0]), (1, 1, 0));
        assert!(!tmy.month.iter().zip(&tmy.day).any(|(&m, &d)| m == 2 && d == 29));
        let series = generate(
            &boulder(),
            2012,
            &SeriesOptions { time_base: TimeBase::LocalStandard, leap_day: false, minute: 30 },
        );
        assert_eq!(series.unix_seconds[0], (days_from_civil(2012, 1, 1) * 86_400) + 30 * 60 + 7 * 3600);
        assert_eq!(tmy.gh, series.ghi);
    }
}
