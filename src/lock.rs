//! A mutex taken whatever became of its last holder: a thread that
//! panicked while holding it leaves data that every user here can still
//! read and write safely (caches, counters, session tables), so the
//! poison is ignored rather than spread.

use std::sync::{Mutex, MutexGuard};

/// `m`, locked; a poisoned lock is taken all the same.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poisoned_lock_is_taken_with_its_data() {
        let m = std::sync::Arc::new(Mutex::new(1));
        let held = m.clone();
        let _ = std::thread::spawn(move || {
            let _guard = held.lock().unwrap();
            panic!("poisons the lock");
        })
        .join();
        assert!(m.is_poisoned());
        *lock(&m) += 1;
        assert_eq!(*lock(&m), 2);
    }
}
