//! The lane: effects run one at a time, a waiting one replaced by a newer one.

use super::*;
use std::sync::Mutex;
use std::time::Duration;

fn refresh(generation: u64) -> Effect {
    Effect::Refresh {
        after: Duration::ZERO,
        generation,
    }
}

#[test]
fn a_lane_runs_the_first_and_the_newest_and_drops_those_between() {
    let lane = Arc::new(Lane::default());
    let ran = Arc::new(Mutex::new(Vec::new()));
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let go_rx = Arc::new(Mutex::new(go_rx));
    let run = |ran: Arc<Mutex<Vec<u64>>>,
               started: std::sync::mpsc::Sender<u64>,
               go: Arc<Mutex<std::sync::mpsc::Receiver<()>>>| {
        move |e: Effect| {
            let Effect::Refresh { generation, .. } = e else {
                unreachable!()
            };
            let _ = started.send(generation);
            // The first waits until the test has queued the others.
            if generation == 1 {
                let _ = go.lock().unwrap().recv();
            }
            ran.lock().unwrap().push(generation);
        }
    };
    lane.submit(
        refresh(1),
        run(ran.clone(), started_tx.clone(), go_rx.clone()),
    );
    assert_eq!(started_rx.recv_timeout(Duration::from_secs(10)), Ok(1));
    for g in 2..=5 {
        lane.submit(
            refresh(g),
            run(ran.clone(), started_tx.clone(), go_rx.clone()),
        );
    }
    go_tx.send(()).unwrap();
    assert_eq!(started_rx.recv_timeout(Duration::from_secs(10)), Ok(5));
    // The worker ends once nothing waits; a new effect starts another.
    for _ in 0..1000 {
        if !lane.state.lock().unwrap().1 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(*ran.lock().unwrap(), vec![1, 5]);
    lane.submit(
        refresh(6),
        run(ran.clone(), started_tx.clone(), go_rx.clone()),
    );
    assert_eq!(started_rx.recv_timeout(Duration::from_secs(10)), Ok(6));
}
