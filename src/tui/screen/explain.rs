//! A miss (or an event) explained on the main screen, as a screen asks
//! it ([`super::Outcome::Explain`]): the request searched, the tool shown,
//! and what the followed gateway answered that request, which the detail
//! tells a tool's standing from.

/// What a key on a row asks: its request searched, and the tool shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explain {
    pub query: Option<String>,
    pub tool: Option<String>,
    /// What the followed gateway answered that request, when the row is
    /// a search or a miss (the search it blames).
    pub answered: Option<Answered>,
}

/// What the followed gateway answered one search: the source of truth for
/// where a tool stood in it (the explorer's own search of the same request
/// is a comparison, and says so).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answered {
    pub query: String,
    /// The ranker it named (empty when it named none).
    pub ranker: String,
    /// The tools it returned, in its order.
    pub tools: Vec<String>,
    /// Its answer said nothing fits (its gate held the tools back).
    pub nothing_fits: bool,
}

impl Answered {
    /// The gateway's answer as a search event records it.
    pub fn of(s: &crate::traffic::Search) -> Answered {
        Answered {
            query: s.query.clone(),
            ranker: s.ranker.clone(),
            tools: s.tools.clone(),
            nothing_fits: s.nothing_fits,
        }
    }

    /// Where the tool stood in the gateway's answer, as a sentence (not
    /// escaped: it names the gateway's tools). `place` is the tool's place
    /// in [`Self::tools`], from 0, when the gateway returned it.
    pub fn standing(&self, place: Option<usize>) -> String {
        match place {
            Some(at) => format!(
                "returned: the gateway gave it {} of {}",
                crate::search::why::ordinal(at + 1),
                self.tools.len()
            ),
            None if self.nothing_fits || self.tools.is_empty() => {
                "not returned: the gateway answered that no tool fits this request".into()
            }
            None => format!(
                "not returned: the gateway answered {}",
                self.tools.join(", ")
            ),
        }
    }
}
