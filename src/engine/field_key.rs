//! TEMPORARY until the engine split lands: machine names of fields.
use super::Field;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown field {0:?}")]
pub struct UnknownField(pub String);

impl Field {
    pub fn key(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Description => "description",
            Field::ParamName => "param_name",
            Field::ParamDescription => "param_description",
            Field::NameBigram => "name_bigram",
            Field::DescriptionBigram => "description_bigram",
        }
    }
}

impl std::str::FromStr for Field {
    type Err = UnknownField;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Field::ALL
            .into_iter()
            .find(|f| f.key() == s)
            .ok_or_else(|| UnknownField(s.to_string()))
    }
}
