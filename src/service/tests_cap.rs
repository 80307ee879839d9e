//! The cap's rule, said once ([`crate::tools_handle::MaxTools`]), as the
//! service applies it; and a request made from the settings in force.

use std::sync::Arc;

use super::*;
use crate::catalog::Tool;
use crate::settings::Settings;
use crate::tools_handle::SelectError;

fn two_always() -> Catalog {
    let tools = ["a", "b", "c", "d"].map(|n| {
        let mut t = Tool::new(n, format!("tool {n}"));
        t.always_load = n == "a" || n == "b";
        t
    });
    Catalog::new("t", tools.to_vec()).unwrap()
}

fn asked(max_tools: u64) -> SearchRequest {
    SearchRequest {
        query: "tool".into(),
        max_tools: MaxTools::new(max_tools),
        ..SearchRequest::default()
    }
}

#[test]
fn the_service_refuses_what_the_rule_refuses_with_its_words() {
    let service = Service::new(ServiceConfig::default());
    let catalog = two_always();
    let zero = MaxTools::from_json(&serde_json::json!(0)).unwrap_err();
    assert_eq!(
        (zero.code(), zero),
        ("invalid_max_tools", SelectError::MaxTools)
    );
    let rule = MaxTools::MIN.room_for(2).unwrap_err();
    assert_eq!(rule.code(), "max_tools_below_always_load");
    let refused = service.plan(&catalog, &asked(1)).unwrap_err();
    assert_eq!(
        (refused.code, refused.message),
        (rule.code(), rule.to_string())
    );
    assert_eq!(service.plan(&catalog, &asked(2)).unwrap().cap, 2);
}

#[test]
fn a_request_in_force_carries_the_settings_and_the_handles_cap() {
    let catalog = Arc::new(two_always());
    let settings = Settings {
        max_loaded_tools: MaxTools::new(3),
        gate: false,
        ..Settings::default()
    };
    let handle = settings.validate(&catalog).unwrap();
    let r = SearchRequest::in_force(&settings, &handle, "tool");
    assert_eq!(r.query, "tool");
    assert_eq!(
        r.max_tools,
        MaxTools::new(3),
        "max_loaded_tools is the cap sent"
    );
    assert_eq!(r.ranker, Some(settings.ranker));
    assert_eq!(r.token_basis, None, "no basis named unless chosen");
    assert_eq!(r.gate, Some(false));
    let chosen = Settings {
        max_tools: MaxTools::new(2),
        ..settings
    };
    let r = SearchRequest::in_force(&chosen, &handle, "tool");
    assert_eq!(
        r.max_tools,
        MaxTools::new(2),
        "max_tools wins over max_loaded_tools"
    );
    assert!(!r.preview && r.session_id.is_none());
}
