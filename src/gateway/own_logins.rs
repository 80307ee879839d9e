//! What one API key sees of its own logins: a server whose keys each log
//! in (`"login": "per-user"`) that this key has no login of its own to
//! waits for that key's login, in its first view and its searches' notes,
//! with the command that makes it (`toolsift login SERVER --as KEY`).

use super::answer::describe::{NotUp, search_description};
use super::policy::access::Reach;
use super::{Gateway, Snapshot};
use crate::terminal_text::escape;

impl Gateway {
    /// The servers not up that `reach` reaches, as the key `key` (its
    /// name or digest, as its calls carry it) sees them: with the
    /// per-user servers it has no login of its own to.
    pub(crate) fn not_up_for_key(&self, reach: &Reach, key: Option<&str>) -> NotUp {
        let mut not_up = self.not_up_for(reach);
        for (server, how) in self.host.own_logins_missing(key) {
            if !(reach.is_everything() || reach.server(&server, &self.config.rules)) {
                continue;
            }
            let line = format!("{server}: {how}");
            match not_up.login.iter().position(|s| *s == server) {
                Some(i) => not_up.login_how[i] = line,
                None => {
                    not_up.login.push(server);
                    not_up.login_how.push(line);
                }
            }
        }
        not_up
    }

    /// `search_tools`' description for the key `key` of `reach`, over its
    /// `view`: made again when it waits for a login of its own, and
    /// saying how that key makes it (the first view of a host that reads
    /// no instructions).
    pub(crate) fn description_for_key(
        &self,
        reach: &Reach,
        key: Option<&str>,
        view: &Snapshot,
    ) -> String {
        if self.host.own_logins_missing(key).is_empty() {
            return self.description_for(reach, view);
        }
        let not_up = self.not_up_for_key(reach, key);
        let own: Vec<String> = self
            .host
            .own_logins_missing(key)
            .into_iter()
            .filter(|(s, _)| not_up.login.contains(s))
            .map(|(s, how)| format!("{}: {}", escape(&s), escape(&how)))
            .collect();
        let mut description = search_description(&view.catalog, &not_up);
        if !own.is_empty() {
            description.push_str(&format!(
                " Waiting for this API key's own login: {}.",
                own.join("; ")
            ));
        }
        description
    }
}
