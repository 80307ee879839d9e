//! `explore --count-with`: the gauges and the detail pane show the
//! estimates, then the provider's counts as they come (marked exact); a
//! provider that refuses leaves the estimates, marked so, and says why.

use crate::common::explorer::{screen, settle_holding, setup_of};
use crate::common::fake_counter::{FakeCounter, Scripted};
use toolsift::provider::Provider;
use toolsift::provider_count::CountConfig;
use toolsift::tui::Setup;
use toolsift::tui::app::App;
use toolsift::tui::effect::{Effect, Msg};

/// Runs `effects` and what their answers cause; the provider's counts are
/// kept back and returned, unless `counts` lets them run too.
fn run(app: &mut App, effects: Vec<Effect>, counts: bool) -> Vec<Effect> {
    settle_holding(app, effects, |e| {
        !counts && matches!(e, Effect::Count { .. })
    })
}

fn explorer(fake: &FakeCounter, width: u16, height: u16) -> (App, Vec<Effect>) {
    let setup = Setup {
        count: Some(CountConfig {
            provider: Provider::Openai,
            model: "gpt-4o".into(),
            base_url: fake.url.clone(),
            key: "sk-test".into(),
            timeout: std::time::Duration::from_secs(10),
            cache_dir: None,
        }),
        ..setup_of("@demo")
    };
    let (mut app, effects) = App::new(setup).unwrap();
    app.update(Msg::Resize(width, height));
    let held = run(&mut app, effects, false);
    (app, held)
}

#[test]
fn the_gauges_switch_from_the_estimate_to_the_exact_count_at_80x24() {
    let fake = FakeCounter::start(Vec::new());
    let (mut app, held) = explorer(&fake, 80, 24);
    // One count asked at a time, the whole catalog first.
    assert_eq!(held.len(), 1);
    let before = screen(&app);
    assert!(before.contains("counting…"), "{before}");
    // (The figures shorten as numbers at 80 columns.)
    assert!(
        before.contains("of 10,445 tk") || before.contains("of 10.4k tk"),
        "{before}"
    );
    insta::assert_snapshot!("exact_counting_at_80x24", before);
    run(&mut app, held, true);
    let after = screen(&app);
    insta::assert_snapshot!("exact_counted_at_80x24", after);
    // The fake counts 100 a tool plus its name's bytes: nothing like the
    // estimate, so the figures shown are the provider's.
    let names: usize = app.catalog().tools().iter().map(|t| t.name.len()).sum();
    let full = 100 * app.catalog().len() as u64 + names as u64;
    assert_eq!(app.exact_full(), Some(full));
    // The context-budget fallback compares the same figure.
    assert_eq!(app.full_tokens(), Some(full));
    let shown = toolsift::numbers::thousands(full);
    let short = toolsift::tui::text::short_number(full);
    assert!(
        after.contains(&format!("of {shown} tk")) || after.contains(&format!("of {short} tk")),
        "{after}"
    );
    assert!(after.contains("exact"), "{after}");
    assert!(!after.contains("counting…"), "{after}");
    // Full, initial, sent, the overhead's three and the current tool;
    // without tools once; each asked once.
    let seen = fake.seen();
    assert_eq!(seen.len(), 7, "{seen:?}");
    assert!(
        seen.iter()
            .all(|s| s.path == "/v1/responses/input_tokens" && s.body["model"] == "gpt-4o")
    );
    // The tool in the detail pane: its exact share.
    let index = app.current_tool().unwrap().0;
    let name = &app.catalog().tools()[index].name;
    assert_eq!(app.exact_tool(index), Some(100 + name.len() as u64));
}

#[test]
fn the_detail_pane_says_the_basis_and_the_exact_share_at_120x35() {
    let fake = FakeCounter::start(Vec::new());
    let (mut app, held) = explorer(&fake, 120, 35);
    run(&mut app, held, true);
    let text = screen(&app);
    let index = app.current_tool().unwrap().0;
    let share = 100 + app.catalog().tools()[index].name.len();
    assert!(text.contains(&format!("{share} tk exact")), "{text}");
    assert!(text.contains("(openai:gpt-4o, its share)"), "{text}");
    assert!(text.contains("(o200k_base)"), "{text}");
}

#[test]
fn a_refusal_leaves_the_estimates_marked_and_says_why() {
    let fake = FakeCounter::start(vec![Scripted {
        status: 401,
        body: r#"{"error": {"message": "Incorrect API key provided"}}"#.into(),
        delay: std::time::Duration::ZERO,
    }]);
    let (mut app, held) = explorer(&fake, 120, 35);
    let more = run(&mut app, held, true);
    assert!(more.is_empty());
    let text = screen(&app);
    assert!(text.contains("could not count"), "{text}");
    assert!(text.contains("Incorrect API key"), "{text}");
    assert_eq!(app.exact_full(), None);
    // Nothing more is asked after the refusal.
    assert_eq!(fake.seen().len(), 1);
    // At 80 columns the message is longer than the line: it is shown whole
    // over the rows above, and help and quit stay on the line.
    app.update(Msg::Resize(80, 24));
    let text = screen(&app);
    let last = text.lines().last().unwrap();
    assert!(last.contains("? help") && last.contains("q quit"), "{last}");
    assert!(!text.contains('…') || !last.contains('…'), "{last}");
    let bottom: String = text.lines().rev().take(6).collect::<Vec<_>>().join(" ");
    assert!(bottom.contains("Incorrect API key"), "{text}");
    app.update(Msg::Resize(120, 35));
    let text = screen(&app).replace(['│', '┃', '"', '\n'], "");
    assert!(text.contains("the estimates stand"), "{text}");
    // The next key clears the message: the Tokens box has the estimates.
    app.update(Msg::Key(crossterm::event::KeyEvent::from(
        crossterm::event::KeyCode::Char('j'),
    )));
    let text = screen(&app);
    assert!(text.contains("of 10,445 tk"), "{text}");
}
