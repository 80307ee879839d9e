//! Hand-worked sessions: four tools of 1,000, 2,000, 500 and 1,500 tokens
//! (5,000 in all), the first one the initial set, a system prompt of 500,
//! three turns of 200 message tokens each, and the third tool (500) found
//! on turn 2.

use super::*;

const COSTS: [u64; 4] = [1000, 2000, 500, 1500];
const INITIAL: [usize; 1] = [0];

fn tools() -> Tools<'static> {
    Tools {
        costs: &COSTS,
        initial: &INITIAL,
    }
}

fn session() -> Session {
    simulated(500, 3, 200, 2, &[2])
}

fn way(costs: &[WayCost], way: Way) -> &WayCost {
    costs.iter().find(|c| c.way == way).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn anthropic_by_hand() {
    let c = costs(&ANTHROPIC, tools(), &session());
    // All up front: 5,700 written (7,125); then 5,700 read (570) + 200
    // written (250); then 5,900 read (590) + 200 written (250).
    let all = way(&c, Way::AllUpFront);
    assert_eq!(all.sent, 5700 + 5900 + 6100);
    let per: Vec<f64> = all.turns.iter().map(|t| t.cost).collect();
    assert!(
        close(per[0], 7125.0) && close(per[1], 820.0) && close(per[2], 840.0),
        "{per:?}"
    );
    assert!(close(all.cost, 8785.0), "{}", all.cost);
    assert_eq!(all.cold_turns, [1]);
    // In the conversation: 1,700 written (2,125); the found tool's 500
    // join the messages: 1,700 read (170) + 700 written (875); then 2,400
    // read (240) + 200 written (250).
    let conv = way(&c, Way::DeferredInConversation);
    assert_eq!(conv.sent, 1700 + 2400 + 2600);
    assert!(close(conv.cost, 2125.0 + 1045.0 + 490.0), "{}", conv.cost);
    assert_eq!(conv.cold_turns, [1]);
    // Added to the list: turn 2's list changed, so all 2,400 are written
    // again (3,000).
    let list = way(&c, Way::DeferredAddedToList);
    assert_eq!(list.sent, conv.sent);
    assert!(close(list.cost, 2125.0 + 3000.0 + 490.0), "{}", list.cost);
    assert_eq!(list.cold_turns, [1, 2]);
    assert_eq!(
        (
            list.turns[1].read,
            list.turns[1].written,
            list.turns[1].uncached
        ),
        (0, 2400, 0)
    );
}

#[test]
fn anthropic_one_hour_writes_cost_twice() {
    let c = costs(&ANTHROPIC_1H, tools(), &session());
    assert!(close(way(&c, Way::AllUpFront).turns[0].cost, 11_400.0));
}

#[test]
fn openai_by_hand() {
    let c = costs(&OPENAI, tools(), &session());
    // No write surcharge; cached tokens in steps of 128: 5,700 -> 5,632.
    let all = way(&c, Way::AllUpFront);
    let per: Vec<f64> = all.turns.iter().map(|t| t.cost).collect();
    assert!(close(per[0], 5700.0), "{per:?}");
    assert!(close(per[1], 563.2 + 268.0), "{per:?}");
    assert!(close(per[2], 588.8 + 212.0), "{per:?}");
    assert_eq!(
        (
            all.turns[1].read,
            all.turns[1].written,
            all.turns[1].uncached
        ),
        (5632, 0, 268)
    );
    let conv = way(&c, Way::DeferredInConversation);
    assert!(close(conv.cost, 1700.0 + 902.4 + 526.4), "{}", conv.cost);
    let list = way(&c, Way::DeferredAddedToList);
    assert!(close(list.cost, 1700.0 + 2400.0 + 526.4), "{}", list.cost);
}

#[test]
fn openai_gpt_4o_reads_at_half_and_5_6_writes_at_a_quarter_more() {
    let c = costs(&OPENAI_4O, tools(), &session());
    assert!(close(
        way(&c, Way::AllUpFront).turns[1].cost,
        2816.0 + 268.0
    ));
    let c = costs(&OPENAI_5_6, tools(), &session());
    // Exact counts, and the write surcharge: as Anthropic's 5-minute cache.
    let anthropic = costs(&ANTHROPIC, tools(), &session());
    for w in Way::ALL {
        assert!(close(way(&c, w).cost, way(&anthropic, w).cost), "{w:?}");
    }
}

#[test]
fn a_prompt_under_the_minimum_is_not_cached() {
    let small = [100, 100];
    let tools = Tools {
        costs: &small,
        initial: &[0],
    };
    let s = simulated(300, 2, 200, 0, &[]);
    let c = costs(&ANTHROPIC, tools, &s);
    let all = way(&c, Way::AllUpFront);
    // 700 then 900 tokens: below 1,024, billed plain, nothing read.
    assert_eq!(all.turns[0], bill(&ANTHROPIC, 700, 0));
    assert!(close(all.cost, 1600.0));
    assert_eq!(all.turns[1].read, 0);
}

#[test]
fn a_tool_found_twice_is_sent_once() {
    let mut s = session();
    s.turns[2].found = vec![2];
    assert_eq!(
        costs(&ANTHROPIC, tools(), &s),
        costs(&ANTHROPIC, tools(), &session())
    );
}

#[test]
fn providers_are_named_and_an_unknown_one_lists_them() {
    assert_eq!(Pricing::named("OpenAI").unwrap(), OPENAI);
    let err = Pricing::named("gemini").unwrap_err();
    assert_eq!(err, UnknownPricing("gemini".into()));
    assert!(err.to_string().contains("anthropic, openai"), "{err}");
}
