use super::*;

#[test]
fn base_url_rules() {
    assert_eq!(
        normalize_base_url("http://127.0.0.1:8787/").unwrap(),
        "http://127.0.0.1:8787"
    );
    assert_eq!(
        normalize_base_url("https://cave.example/api//").unwrap(),
        "https://cave.example/api"
    );
    for bad in [
        " http://x",
        "http://x ",
        "ftp://x",
        "x.example",
        "/relative",
        "http://user:pw@x",
        "http://x/?q=1",
        "http://x/#f",
    ] {
        assert!(normalize_base_url(bad).is_err(), "{bad}");
    }
}

#[test]
fn workflow_from_env() {
    assert_eq!(env_workflow(Some("My_Flow-2")), "my_flow-2");
    assert_eq!(env_workflow(Some("bad flow")), DEFAULT_WORKFLOW);
    assert_eq!(env_workflow(Some(&"a".repeat(97))), DEFAULT_WORKFLOW);
    assert_eq!(env_workflow(Some("")), DEFAULT_WORKFLOW);
    assert_eq!(env_workflow(None), DEFAULT_WORKFLOW);
}

#[test]
fn settings_over_environment() {
    let env = |n: &str| match n {
        "CAVE_BASE_URL" => Some("http://env.example:9/".to_string()),
        "CAVE_API_KEY" => Some("env-key".to_string()),
        "CAVE_WORKFLOW" => Some("Nightly".to_string()),
        _ => None,
    };
    let none = |_: &str| None;
    assert_eq!(
        ClientConfig::resolve(&ClientSettings::default(), &none),
        Ok(None)
    );
    let c = ClientConfig::resolve(&ClientSettings::default(), &env)
        .unwrap()
        .unwrap();
    assert_eq!(c.base_url, "http://env.example:9");
    assert_eq!(c.api_key.as_deref(), Some("env-key"));
    assert_eq!(c.workflow, "nightly");
    assert_eq!(
        (c.agent.as_str(), c.retention.as_str()),
        ("toolsift", "metadata")
    );
    assert_eq!(c.timeout, Duration::from_secs(30));
    assert!(!format!("{c:?}").contains("env-key"));
    let flags = ClientSettings {
        service: Some("http://flag.example".into()),
        api_key: Some("flag-key".into()),
        workflow: Some("wf".into()),
        agent: Some("me".into()),
        retention: Some("none".into()),
        user_hash: Some("u1".into()),
    };
    let c = ClientConfig::resolve(&flags, &env).unwrap().unwrap();
    assert_eq!(c.base_url, "http://flag.example");
    assert_eq!(c.api_key.as_deref(), Some("flag-key"));
    let h = c.headers().unwrap();
    assert_eq!(h["authorization"], "Bearer flag-key");
    assert_eq!(h["x-cave-agent"], "me");
    assert_eq!(h["x-cave-workflow"], "wf");
    assert_eq!(h["x-cave-retention"], "none");
    assert_eq!(h["x-cave-user-hash"], "u1");
    assert_eq!(h["content-type"], "application/json");
    assert_eq!(h.len(), 6);
}
