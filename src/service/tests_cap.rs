//! The cap's rule, said once (`tools_handle::check_max_tools`), as the
//! service applies it; and a request made from the settings in force.

use std::sync::Arc;

use super::*;
use crate::catalog::Tool;
use crate::settings::Settings;
use crate::tools_handle::{SelectError, check_max_tools};

fn two_always() -> Catalog {
    let tools = ["a", "b", "c", "d"].map(|n| {
        let mut t = Tool::new(n, format!("tool {n}"));
        t.always_load = n == "a" || n == "b";
        t
    });
    Catalog::new("t", tools.to_vec()).unwrap()
}

fn asked(max_tools: Option<u64>) -> SearchRequest {
    SearchRequest {
        query: "tool".into(),
        max_tools,
        ..SearchRequest::default()
    }
}

#[test]
fn the_service_refuses_what_the_rule_refuses_with_its_words() {
    let service = Service::new(ServiceConfig::default());
    let catalog = two_always();
    for (max_tools, code) in [(0, "invalid_max_tools"), (1, "max_tools_below_always_load")] {
        let rule = check_max_tools(max_tools, 2).unwrap_err();
        assert_eq!(rule.code(), code);
        let refused = service.plan(&catalog, &asked(Some(max_tools))).unwrap_err();
        assert_eq!((refused.code, refused.message), (code, rule.to_string()));
    }
    assert_eq!(check_max_tools(2, 2), Ok(2));
    assert_eq!(service.plan(&catalog, &asked(Some(2))).unwrap().cap, 2);
    assert_eq!(
        check_max_tools(0, 0),
        Err(SelectError::MaxTools),
        "positive even with no always-load tool"
    );
}

#[test]
fn a_request_in_force_carries_the_settings_and_the_handles_cap() {
    let catalog = Arc::new(two_always());
    let settings = Settings {
        max_loaded_tools: Some(3),
        gate: false,
        ..Settings::default()
    };
    let handle = settings.validate(&catalog).unwrap();
    let r = SearchRequest::in_force(&settings, &handle, "tool");
    assert_eq!(r.query, "tool");
    assert_eq!(r.max_tools, Some(3), "max_loaded_tools is the cap sent");
    assert_eq!(r.ranker, Some(settings.ranker));
    assert_eq!(r.token_basis, None, "no basis named unless chosen");
    assert_eq!(r.gate, Some(false));
    let chosen = Settings {
        max_tools: Some(2),
        ..settings
    };
    let r = SearchRequest::in_force(&chosen, &handle, "tool");
    assert_eq!(r.max_tools, Some(2), "max_tools wins over max_loaded_tools");
    assert!(!r.preview && r.session_id.is_none());
}
