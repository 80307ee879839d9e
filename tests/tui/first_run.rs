//! The explorer's first run: the search model is not in the hub cache, so
//! the explorer opens at once ranking with BM25F, fetches the model (from a
//! hub faked here, serving the real all-MiniLM-L6-v2) off the UI thread
//! with its progress in the header, takes keys all the while, and ranks
//! with hybrid once the model is here. The real binary in a pty.

use crate::common;
use crate::terminal::Tty;

#[test]
fn the_model_is_fetched_while_the_explorer_takes_keys_then_hybrid_ranks() {
    let hf_home = tempfile::tempdir().unwrap();
    let (endpoint, log, stop) = common::fake_hub::start_hub_of(
        &common::minilm_dir(),
        "sentence-transformers/all-MiniLM-L6-v2",
    );
    let home = hf_home.path().to_str().unwrap().to_string();
    let mut tty = Tty::spawn_with(
        &["explore", "@demo"],
        &[
            ("HF_HOME", home.as_str()),
            ("HF_ENDPOINT", endpoint.as_str()),
            ("TOOLSIFT_OFFLINE", "0"),
        ],
    );
    // Open at once, before the model: BM25F, said.
    tty.wait_for("toolsift demo");
    tty.send(b"/");
    for c in "refund a payment".bytes() {
        tty.send(&[c]);
    }
    tty.wait_for("> refund a payment");
    // The model comes, and hybrid ranks from then on.
    tty.wait_for("ranking with hybrid");
    tty.wait_for("hybrid");
    assert!(
        log.lock()
            .unwrap()
            .iter()
            .any(|l| l.ends_with("model.safetensors")),
        "the model was fetched from the hub"
    );
    assert!(
        hf_home.path().join("hub").is_dir(),
        "the model is in the hub cache for the next run"
    );
    tty.send(b"\x03");
    assert!(tty.wait_exit().success());
    let _ = stop.send(());
}
