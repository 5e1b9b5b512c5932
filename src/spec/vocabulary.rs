//! The spec's vocabularies that every layer reads: the dataset query's data set codes. (The
//! climate attributes are `formats::climate_csv::Attribute`, with their per-family names.)

/// The four dataset codes of the spec, in the order responses list them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dataset {
    Tmy2,
    Tmy3,
    Intl,
    Satdb,
}

impl Dataset {
    pub const ALL: [Dataset; 4] = [Dataset::Tmy2, Dataset::Tmy3, Dataset::Intl, Dataset::Satdb];

    pub fn code(self) -> &'static str {
        match self {
            Dataset::Tmy2 => "tmy2",
            Dataset::Tmy3 => "tmy3",
            Dataset::Intl => "intl",
            Dataset::Satdb => "satdb",
        }
    }

    pub fn from_code(code: &str) -> Option<Dataset> {
        Dataset::ALL.into_iter().find(|dataset| dataset.code() == code)
    }

    /// The digit that starts every id of this dataset (`0-94018` is tmy2).
    pub fn id_prefix(self) -> &'static str {
        match self {
            Dataset::Tmy2 => "0",
            Dataset::Tmy3 => "1",
            Dataset::Intl => "2",
            Dataset::Satdb => "3",
        }
    }

    /// The dataset an id belongs to, read from its digit prefix. Real v1 and v2 ids share this
    /// shape, so an id alone does not tell which query version produced it (see
    /// `services::solar::Station::query_version`).
    pub fn from_id(id: &str) -> Option<Dataset> {
        let (prefix, _) = id.split_once('-')?;
        Dataset::ALL.into_iter().find(|dataset| dataset.id_prefix() == prefix)
    }
}
