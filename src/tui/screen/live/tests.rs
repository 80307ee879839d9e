use super::*;
use crate::follow::Source;
use crate::traffic::misses::{Judge, MissKind};

const RECORDED: &str = include_str!("../../../../assets/traces/gateway-session.jsonl");

fn recorded() -> Vec<Event> {
    crate::traffic::parse(RECORDED, "recorded").unwrap()
}

fn pane() -> LivePane {
    LivePane::new(Source::File("trace.jsonl".into()), "misses.jsonl".into())
}

/// The pane fed `events` as a whole trace, judged by no catalog.
fn fed(events: Vec<Event>) -> LivePane {
    let mut live = pane();
    live.judge_by(Judge::blind(true), "no catalog".into());
    live.receive(Note::Connected, 10);
    live.receive(Note::Events { events, dropped: 0 }, 10);
    live
}

#[test]
fn the_recorded_session_s_four_misses_are_found_as_it_comes() {
    let live = fed(recorded());
    assert_eq!(live.link(), &Link::Connected);
    assert_eq!(live.events().len(), 16);
    let kinds: Vec<(MissKind, Option<&str>)> = live
        .misses()
        .iter()
        .map(|m| (m.kind, m.wanted.as_deref()))
        .collect();
    assert_eq!(
        kinds,
        [
            // It had get_oncall_schedule second, and searched again anyway.
            (MissKind::SearchedAgain, None),
            (MissKind::NothingFitsThenCall, Some("get_current_user")),
            (MissKind::CalledUnreturned, Some("read_channel_history")),
            (MissKind::FoundNeverCalled, None),
        ]
    );
    // The newest row is highlighted while following.
    assert_eq!(live.list().selected, 15);
}

#[test]
fn judged_by_the_catalog_an_always_load_call_is_no_miss_and_the_last_search_waits_for_its_call() {
    let catalog = crate::catalog::load(&crate::catalog::CatalogSource::demo()).unwrap();
    let mut live = pane();
    live.receive(
        Note::Events {
            events: recorded(),
            dropped: 0,
        },
        10,
    );
    // As traffic comes: the session's last search may still get its call.
    live.judge_by(follow::judge(&catalog, false), "demo".into());
    let kinds: Vec<MissKind> = live.misses().iter().map(|m| m.kind).collect();
    assert_eq!(kinds, [MissKind::SearchedAgain, MissKind::CalledUnreturned]);
    // The whole session: get_current_user is always-load, not a miss.
    live.judge_by(follow::judge(&catalog, true), "demo".into());
    let kinds: Vec<MissKind> = live.misses().iter().map(|m| m.kind).collect();
    assert_eq!(
        kinds,
        [
            MissKind::SearchedAgain,
            MissKind::CalledUnreturned,
            MissKind::FoundNeverCalled
        ]
    );
}

#[test]
fn a_guessed_tool_name_is_its_own_kind_and_e_refuses_it_saying_why() {
    let catalog = crate::catalog::load(&crate::catalog::CatalogSource::demo()).unwrap();
    let mut live = pane();
    live.judge_by(follow::judge(&catalog, false), "demo".into());
    let events = crate::traffic::parse(
        concat!(
            r#"{"kind":"search","session":"s","query":"page the on-call","tools":["get_oncall_schedule"]}"#,
            "\n",
            r#"{"kind":"call","session":"s","name":"no_such_tool","outcome":"tool_error"}"#,
        ),
        "t",
    )
    .unwrap();
    live.receive(Note::Events { events, dropped: 0 }, 10);
    assert_eq!(live.misses().len(), 1);
    assert_eq!(live.misses()[0].kind, MissKind::UnknownTool);
    live.handle(Action::LiveMisses, 10);
    assert!(matches!(live.handle(Action::LiveSave, 10), Outcome::Stay));
    let said = live.message.clone().unwrap();
    assert!(
        said.contains("no_such_tool is not in the catalog in view"),
        "{said}"
    );
}

#[test]
fn events_in_two_batches_find_what_one_batch_finds() {
    let events = recorded();
    let mut live = pane();
    live.judge_by(Judge::blind(true), "no catalog".into());
    live.receive(
        Note::Events {
            events: events[..7].to_vec(),
            dropped: 0,
        },
        10,
    );
    live.receive(
        Note::Events {
            events: events[7..].to_vec(),
            dropped: 2,
        },
        10,
    );
    assert_eq!(live.misses(), fed(events).misses());
    assert_eq!(live.dropped(), 2);
}

#[test]
fn a_miss_opens_its_request_with_the_tool_wanted_and_is_added_once() {
    let mut live = fed(recorded());
    assert!(matches!(live.handle(Action::LiveMisses, 10), Outcome::Stay));
    assert!(live.misses_only());
    live.handle(Action::LiveTop, 10);
    live.handle(Action::LiveDown, 10);
    live.handle(Action::LiveDown, 10);
    match live.handle(Action::LiveOpen, 10) {
        Outcome::Explain(e) => assert_eq!(
            e,
            Explain {
                query: Some("find tickets about SSO login failures".into()),
                tool: Some("read_channel_history".into()),
                // The gateway's own answer travels with it.
                answered: Some(Answered {
                    query: "find tickets about SSO login failures".into(),
                    ranker: "bm25".into(),
                    tools: [
                        "create_ticket",
                        "search_tickets",
                        "create_issue",
                        "assign_ticket",
                        "update_ticket",
                        "get_ticket",
                        "add_ticket_comment"
                    ]
                    .map(String::from)
                    .to_vec(),
                    nothing_fits: false,
                }),
            }
        ),
        other => panic!("{other:?}"),
    }
    match live.handle(Action::LiveSave, 10) {
        Outcome::Effects(effects) => match &effects[..] {
            [crate::tui::effect::Effect::AppendLine { path, line, done }] => {
                assert_eq!(path, "misses.jsonl");
                let request: serde_json::Value = serde_json::from_str(line).unwrap();
                assert_eq!(request["query"], "find tickets about SSO login failures");
                assert_eq!(
                    request["expected"],
                    serde_json::json!(["read_channel_history"])
                );
                // eval reads it as a request.
                let parsed = crate::eval::parse_queries(line, "misses.jsonl").unwrap();
                assert_eq!(parsed[0].expected, ["read_channel_history"]);
                assert!(done.contains("toolsift eval"), "{done}");
            }
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    assert!(matches!(live.handle(Action::LiveSave, 10), Outcome::Stay));
    assert!(live.message.as_deref().unwrap().contains("already added"));
    // The last miss shows no tool wanted: nothing to add, and it says so.
    live.handle(Action::LiveBottom, 10);
    assert!(matches!(live.handle(Action::LiveSave, 10), Outcome::Stay));
    assert!(
        live.message
            .as_deref()
            .unwrap()
            .contains("no tool the agent wanted"),
        "{:?}",
        live.message
    );
    match live.handle(Action::LiveOpen, 10) {
        Outcome::Explain(e) => {
            assert_eq!(
                e.query.as_deref(),
                Some("list the pull requests waiting for review")
            );
            assert_eq!(e.tool, None);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn every_key_says_what_it_did_on_an_empty_screen() {
    let mut live = pane();
    assert!(matches!(live.handle(Action::LiveOpen, 10), Outcome::Stay));
    assert!(
        live.message
            .as_deref()
            .unwrap()
            .contains("nothing heard yet")
    );
    live.handle(Action::LiveSave, 10);
    assert!(live.message.as_deref().unwrap().contains("not a miss"));
    live.handle(Action::LiveMisses, 10);
    assert!(live.message.as_deref().unwrap().contains("no misses yet"));
    assert!(matches!(live.handle(Action::LiveClose, 10), Outcome::Close));
}

#[test]
fn a_call_row_shows_its_tool_and_a_search_row_searches_again() {
    let mut live = fed(recorded());
    live.handle(Action::LiveTop, 10);
    match live.handle(Action::LiveOpen, 10) {
        Outcome::Explain(e) => {
            assert_eq!(
                e.query.as_deref(),
                Some("a customer says checkout is broken, open a ticket for them")
            );
            assert_eq!(e.tool, None);
        }
        other => panic!("{other:?}"),
    }
    live.handle(Action::LiveDown, 10);
    match live.handle(Action::LiveOpen, 10) {
        Outcome::Explain(e) => {
            assert_eq!(e.query, None);
            assert_eq!(e.tool.as_deref(), Some("create_ticket"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn moving_up_stops_following_and_the_row_stays_under_the_cursor() {
    let events = recorded();
    let mut live = pane();
    live.receive(
        Note::Events {
            events: events[..10].to_vec(),
            dropped: 0,
        },
        5,
    );
    live.handle(Action::LiveUp, 5);
    live.handle(Action::LiveUp, 5);
    let held = live.current();
    live.receive(
        Note::Events {
            events: events[10..].to_vec(),
            dropped: 0,
        },
        5,
    );
    assert_eq!(live.current(), held, "the cursor keeps its event");
    live.handle(Action::LiveBottom, 5);
    live.receive(
        Note::Events {
            events: events[..1].to_vec(),
            dropped: 0,
        },
        5,
    );
    assert_eq!(live.list().selected, 16, "back at the newest, it follows");
    assert!(live.list().offset + 5 > 16);
}

#[test]
fn more_events_than_are_kept_drop_the_oldest_and_count_them() {
    let one = recorded()[0].clone();
    let mut live = pane();
    live.receive(
        Note::Events {
            events: vec![one; KEPT_EVENTS + 5],
            dropped: 0,
        },
        10,
    );
    assert_eq!(live.events().len(), KEPT_EVENTS);
    assert_eq!(live.dropped(), 5);
}

#[test]
fn the_far_side_lost_and_back_and_a_bad_line_are_told() {
    let mut live = pane();
    live.receive(Note::Lost("connection refused".into()), 10);
    assert!(matches!(live.link(), Link::Lost(w) if w.contains("refused")));
    live.receive(Note::Connected, 10);
    live.receive(Note::BadLine("trace.jsonl:3: not a JSON event".into()), 10);
    live.receive(Note::Restarted, 10);
    assert_eq!(live.link(), &Link::Connected);
    assert_eq!(
        live.bad_lines(),
        (1, Some("trace.jsonl:3: not a JSON event"))
    );
    assert_eq!(live.restarts(), 1);
}

#[test]
fn hostile_text_is_escaped_in_rows_and_the_whole_row() {
    let mut events = recorded();
    if let Event::Search(s) = &mut events[0] {
        s.query = "open\u{1b}[2J a ticket\u{202e}".into();
        s.tools[0] = "evil\u{7}tool".into();
    }
    let live = fed(events);
    let text = draw::event_text(&live.events()[0]);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\u{202e}'),
        "{text}"
    );
}

#[test]
fn the_clock_reads_utc() {
    assert_eq!(draw::clock(Some(1_796_431_600_188)), "00:46:40");
    assert_eq!(draw::clock(None), "--:--:--");
}

#[test]
fn enter_on_the_call_that_showed_a_miss_explains_the_miss() {
    let mut live = fed(recorded());
    // The call of get_current_user after "nothing fits" (the 9th event).
    live.handle(Action::LiveTop, 10);
    for _ in 0..8 {
        live.handle(Action::LiveDown, 10);
    }
    assert_eq!(live.current(), Some(Row::Event(8)));
    match live.handle(Action::LiveOpen, 10) {
        Outcome::Explain(e) => assert_eq!(
            e,
            Explain {
                query: Some("what is the weather in Lisbon".into()),
                tool: Some("get_current_user".into()),
                answered: Some(Answered {
                    query: "what is the weather in Lisbon".into(),
                    ranker: "bm25".into(),
                    tools: Vec::new(),
                    nothing_fits: true,
                }),
            }
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_lost_link_s_reason_is_shown_whole_at_80x24_and_200x60() {
    let why = "http://127.0.0.1:18799/events: error sending request for url (http://127.0.0.1:18799/events): client error (Connect): tcp connect error: Connection refused (os error 111)";
    let mut live = pane();
    live.receive(Note::Lost(why.into()), 10);
    for (w, h) in [(80u16, 24u16), (200, 60)] {
        let mut terminal =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
        let theme = crate::tui::paint::Theme::new(true);
        terminal
            .draw(|f| draw::draw(f, f.area(), &live, &theme))
            .unwrap();
        let buffer = terminal.backend().buffer();
        let text: String = (0..h)
            .map(|y| {
                (0..w)
                    .map(|x| buffer[(x, y)].symbol().to_string())
                    .collect::<String>()
                    .trim_matches(|c| c == '┃' || c == ' ')
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join(" ");
        assert!(text.contains("lost (trying again; why below)"), "{text}");
        // Every word of the reason is on screen, none cut.
        for word in why.split_whitespace() {
            assert!(
                text.contains(word),
                "{w}x{h}: {word:?} is not shown:\n{text}"
            );
        }
    }
}

#[test]
fn slash_filters_the_rows_by_their_words_and_esc_drops_it() {
    let mut live = fed(recorded());
    let all = live.rows().len();
    live.handle(Action::LiveFilter, 10);
    assert_eq!(live.context(), Context::Input, "the box has the keyboard");
    Screen::type_text(&mut live, "ON CALL");
    let shown = live.rows();
    assert!(
        !shown.is_empty() && shown.len() < all,
        "{} of {all}",
        shown.len()
    );
    for row in &shown {
        let Row::Event(i) = row else {
            panic!("{row:?}")
        };
        assert!(
            super::filter::event_matches(&live.events()[*i], &["on".into(), "call".into()]),
            "{:?}",
            live.events()[*i]
        );
    }
    // Enter keeps it and gives the keys back; the list moves within it.
    live.handle(Action::InputSubmit, 10);
    assert_eq!(live.context(), Context::Live);
    assert_eq!(live.filter(), Some(("ON CALL", false)));
    live.handle(Action::LiveTop, 10);
    assert_eq!(live.current(), shown.first().copied());
    // The misses are filtered too.
    live.handle(Action::LiveMisses, 10);
    assert!(live.rows().len() <= live.misses().len());
    live.handle(Action::LiveMisses, 10);
    // `/` again opens the words typed; Esc drops the filter.
    live.handle(Action::LiveFilter, 10);
    live.handle(Action::InputCancel, 10);
    assert_eq!(live.filter(), None);
    assert_eq!(live.rows().len(), all);
    // Words nothing holds: no row, and the screen says why it is empty.
    live.handle(Action::LiveFilter, 10);
    Screen::type_text(&mut live, "zzzz");
    live.handle(Action::InputSubmit, 10);
    assert!(live.rows().is_empty());
}

#[test]
fn pausing_keeps_the_view_as_events_come_and_counts_them() {
    let events = recorded();
    let mut live = fed(events[..6].to_vec());
    assert_eq!(live.list().selected, 5, "following the newest");
    live.handle(Action::LivePause, 10);
    assert_eq!(live.paused(), Some(0));
    live.receive(
        Note::Events {
            events: events[6..].to_vec(),
            dropped: 0,
        },
        10,
    );
    assert_eq!(live.list().selected, 5, "the view stays where it was");
    assert_eq!(live.paused(), Some(10));
    // Again: following the newest once more.
    live.handle(Action::LivePause, 10);
    assert_eq!(live.paused(), None);
    assert_eq!(live.list().selected, 15);
    // G ends a pause too.
    live.handle(Action::LivePause, 10);
    live.handle(Action::LiveTop, 10);
    live.handle(Action::LiveBottom, 10);
    assert_eq!(live.paused(), None);
}

#[test]
fn judged_by_none_only_the_followed_gateway_s_catalog_judges_the_misses() {
    let catalog = crate::catalog::load(&crate::catalog::CatalogSource::demo()).unwrap();
    let mut live = fed(recorded());
    assert!(!live.judged());
    // The catalog in view read again: still judged by none.
    Screen::catalog_in_view(&mut live, &catalog, false);
    assert!(!live.judged());
    assert_eq!(live.judged_by(), "no catalog");
    // The followed gateway's own: judged by it, and by the one in view after.
    Screen::catalog_in_view(&mut live, &catalog, true);
    assert!(live.judged());
    assert_eq!(live.judged_by(), follow::said(&catalog));
    let fewer = catalog.with_always_load(0, true);
    Screen::catalog_in_view(&mut live, &fewer, false);
    assert!(
        live.judged_by()
            .ends_with(&format!("({} tools)", fewer.len()))
    );
    assert_eq!(
        Screen::follows(&live),
        Some(&Source::File("trace.jsonl".into()))
    );
}
