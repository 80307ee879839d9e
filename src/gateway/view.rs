//! What one API key sees: the catalog in use cut to its reach (a
//! [`Snapshot`] of its own, made once per reach and catalog and kept
//! until the catalog changes), the servers not up among those it
//! reaches, and `search_tools`' description and the instructions made
//! from them alone. Keys that reach alike share one view; a key that
//! reaches everything sees the gateway's own snapshot.

use std::sync::Arc;

use super::answer::describe::{NotUp, search_description};
use super::policy::access::Reach;
use super::{Gateway, Snapshot, ToolRule, ToolRules};
use crate::catalog::Catalog;

/// A reach's view and the snapshot it was cut from.
pub(super) type Cut = (Arc<Snapshot>, Arc<Snapshot>);

impl Snapshot {
    /// This snapshot cut to what `reach` reaches, its rules the key's
    /// (`global` with its own), `not_up` its servers not up.
    fn within(&self, reach: &Reach, global: &ToolRules, not_up: &NotUp) -> Snapshot {
        let all = self.catalog.tools();
        let keep: Vec<usize> = (0..all.len())
            .filter(|&i| reach.tool(&all[i], global))
            .collect();
        let tools: Vec<crate::catalog::Tool> = keep.iter().map(|&i| all[i].clone()).collect();
        let name = self.catalog.name().to_string();
        let catalog = match tools.is_empty() {
            true => Catalog::empty(name),
            // The tools were one catalog's: a part of them is one too.
            false => Catalog::new(name.clone(), tools).unwrap_or_else(|_| Catalog::empty(name)),
        };
        let listed: Vec<rmcp::model::Tool> = keep.iter().map(|&i| self.listed[i].clone()).collect();
        let reads = catalog
            .tools()
            .iter()
            .zip(&listed)
            .map(|(t, l)| {
                reach.rule(t, global) == ToolRule::Read
                    || super::answer::call::not_a_plain_read(t, l).is_none()
            })
            .collect();
        let asks = catalog
            .tools()
            .iter()
            .map(|t| reach.rule(t, global) == ToolRule::Ask)
            .collect();
        Snapshot {
            validators: super::policy::validate::Validators::new(catalog.len()),
            search_description: search_description(&catalog, not_up),
            catalog: Arc::new(catalog),
            listed,
            reads,
            asks,
        }
    }
}

impl Gateway {
    /// The catalog as `reach` sees it (the snapshot in use, cut).
    pub(crate) fn view(&self, reach: &Reach) -> Arc<Snapshot> {
        let base = self.snapshot();
        if reach.is_everything() {
            return base;
        }
        let mut views = self.views.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((from, view)) = views.get(reach.profile())
            && Arc::ptr_eq(from, &base)
        {
            return view.clone();
        }
        let not_up = self.not_up_for(reach);
        let view = Arc::new(base.within(reach, &self.config.rules, &not_up));
        views.insert(reach.profile().to_string(), (base, view.clone()));
        view
    }

    /// The servers not up that `reach` reaches.
    pub(crate) fn not_up_for(&self, reach: &Reach) -> NotUp {
        let all = self.servers_not_up();
        if reach.is_everything() {
            return all;
        }
        let rules = &self.config.rules;
        let ours = |names: &[String]| -> Vec<String> {
            names
                .iter()
                .filter(|s| reach.server(s, rules))
                .cloned()
                .collect()
        };
        let login_how = all
            .login
            .iter()
            .zip(&all.login_how)
            .filter(|(s, _)| reach.server(s, rules))
            .map(|(_, how)| how.clone())
            .collect();
        NotUp {
            starting: ours(&all.starting),
            down: ours(&all.down),
            login: ours(&all.login),
            login_how,
        }
    }

    /// `search_tools`' description for `reach`, over its `view`: the
    /// gateway's own for everything, else made now from what it reaches.
    pub(crate) fn description_for(&self, reach: &Reach, view: &Snapshot) -> String {
        if reach.is_everything() {
            return self.description();
        }
        search_description(&view.catalog, &self.not_up_for(reach))
    }
}
