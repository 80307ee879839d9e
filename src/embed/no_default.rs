//! Why the default model is not in use when no ranker and no provider
//! were named: one type for a front end's start-up line and for the
//! explorer's fetch of the model later ([`super::ModelJob`]).

use super::{NoModel, SettingsError};

/// Why BM25F ranks alone when no ranker and no provider were named.
#[derive(Debug, thiserror::Error)]
pub enum NoDefaultModel {
    #[error("the search model is off (TOOLSIFT_MODEL=off)")]
    Off,
    #[error(transparent)]
    NotAtHand(#[from] NoModel),
    #[error("the model {model} did not load ({source})")]
    DidNotLoad {
        model: &'static str,
        source: SettingsError,
    },
    /// The model's settings named none to load.
    #[error("no model to load")]
    NothingToLoad,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reason_says_what_the_user_reads() {
        assert_eq!(
            NoDefaultModel::Off.to_string(),
            "the search model is off (TOOLSIFT_MODEL=off)"
        );
        assert_eq!(
            NoDefaultModel::from(NoModel::NotBuilt).to_string(),
            NoModel::NotBuilt.to_string()
        );
        assert_eq!(
            NoDefaultModel::NothingToLoad.to_string(),
            "no model to load"
        );
        let did_not_load = NoDefaultModel::DidNotLoad {
            model: "m",
            source: SettingsError("no config.json".into()),
        };
        assert_eq!(
            did_not_load.to_string(),
            "the model m did not load (embeddings: no config.json)"
        );
    }
}
