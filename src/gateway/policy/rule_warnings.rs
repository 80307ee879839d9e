//! What the tool rules are warned of at start: a pattern that matches no
//! tool (a typo; a named key's too, and its server pattern that names no
//! server), a tool a pattern matches only in another spelling, a
//! tool spelled with look-alike letters. Said once every server has
//! answered its first start (listed its tools, failed, or asked for a
//! login): before, a rule of a server still starting would be said to
//! match nothing. Servers still starting when their start time runs out
//! are named beside the patterns that match none of the tools.

use std::sync::atomic::Ordering;
use std::time::Instant;

use super::rules;
use crate::catalog::Tool;
use crate::gateway::Gateway;
use crate::terminal_text::escape;

/// Whether the warnings are due, and the servers still starting.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Due {
    /// Servers are in their first start, within its time.
    NotYet,
    /// Every server answered, or these are still starting past their time.
    Now { starting: Vec<String> },
}

/// When the warnings are due: `starting` are the servers in their first
/// start, `deadline` when their time runs out.
pub(crate) fn due(starting: Vec<String>, deadline: Option<Instant>, now: Instant) -> Due {
    if !starting.is_empty() && deadline.is_none_or(|d| now < d) {
        return Due::NotYet;
    }
    Due::Now { starting }
}

impl Gateway {
    /// The rules' warnings over `all` (every tool before the rules), said
    /// once, when [`due`]; whether they were said now.
    pub(crate) fn warn_rules_when_answered(&self, all: &[Tool]) -> bool {
        if self.nothing_to_warn() || self.rules_warned.load(Ordering::Acquire) {
            return false;
        }
        let (starting, deadline) = self.host.first_starts();
        let Due::Now { starting } = due(starting, deadline, Instant::now()) else {
            return false;
        };
        if self.rules_warned.swap(true, Ordering::AcqRel) {
            return false;
        }
        let still = if starting.is_empty() {
            String::new()
        } else {
            format!(
                " (still starting, so not counted: {})",
                escape(&starting.join(", "))
            )
        };
        for pattern in self.config.rules.unmatched(all) {
            self.recorder.warn(&format!(
                "tool rule {} matches none of the {}{still}",
                escape(&format!("{pattern:?}")),
                crate::numbers::counted(all.len(), "tool")
            ));
        }
        for (name, like) in rules::look_alike_names(all) {
            self.recorder.warn(&format!(
                "tool {} is spelled with letters that look like others: it reads as {}; the tool rules treat it as that name",
                escape(&format!("{name:?}")),
                escape(&format!("{like:?}"))
            ));
        }
        // The named keys' patterns: a server none is called, a tool
        // pattern that matches nothing.
        let servers: Vec<String> = self.host.states().into_iter().map(|s| s.name).collect();
        for warning in self.config.access.unmatched(&servers, all) {
            self.recorder.warn(&format!("{warning}{still}"));
        }
        for (pattern, tool) in self.config.rules.respelled(all) {
            self.recorder.warn(&format!(
                "tool rule {} matches {} only in another spelling (case, separators or look-alike letters); it applies to it, as a call's name resolves that way",
                escape(&format!("{pattern:?}")),
                escape(tool)
            ));
        }
        true
    }

    /// No rule and no named key's pattern: nothing to warn of.
    fn nothing_to_warn(&self) -> bool {
        self.config.rules.is_empty() && !self.config.access.has_checks()
    }

    /// Whether the rules' warnings wait for servers that have answered
    /// since (a failed first start lists nothing): then the catalog is
    /// looked at again, and they are said.
    pub(crate) fn rules_warnings_pending(&self) -> bool {
        if self.nothing_to_warn() || self.rules_warned.load(Ordering::Acquire) {
            return false;
        }
        let (starting, deadline) = self.host.first_starts();
        due(starting, deadline, Instant::now()) != Due::NotYet
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn warnings_wait_for_servers_in_their_first_start_then_name_the_late_ones() {
        let now = Instant::now();
        let later = now + Duration::from_secs(20);
        assert_eq!(
            due(vec!["git".into()], Some(later), now),
            Due::NotYet,
            "git is starting: its rules would match nothing yet"
        );
        assert_eq!(
            due(Vec::new(), Some(later), now),
            Due::Now { starting: vec![] }
        );
        assert_eq!(
            due(vec!["git".into()], Some(now), later),
            Due::Now {
                starting: vec!["git".into()]
            }
        );
    }
}
