//! Settings in layers: the command line's flags over the config file over
//! the built-in defaults (`assets/config.toml`). Each layer is the same
//! record with every value optional; a layer over another keeps its own
//! values and takes the rest from below. Every front end layers its
//! settings this one way.

/// A record of optional settings that can lie over another.
pub trait Layer: Sized {
    /// These values over `below`'s: each one given here wins.
    fn over(self, below: Self) -> Self;
}

/// `Layer` for a record whose listed fields are all `Option`s, and maybe
/// maps (after `maps:`) whose entries the upper layer adds or replaces.
macro_rules! layer_of_options {
    ($record:ident { $($field:ident),+ $(,)? }) => {
        $crate::layer::layer_of_options!($record { $($field),+ ; maps: });
    };
    ($record:ident { $($field:ident),+ ; maps: $($map:ident),* }) => {
        impl $crate::layer::Layer for $record {
            fn over(self, below: Self) -> Self {
                $record {
                    $($field: self.$field.or(below.$field),)+
                    $($map: {
                        let mut map = below.$map;
                        map.extend(self.$map);
                        map
                    },)*
                }
            }
        }
    };
}
pub(crate) use layer_of_options;

/// Puts `value` in `slot` when a layer gave one.
pub fn set<T>(slot: &mut T, value: Option<T>) {
    if let Some(v) = value {
        *slot = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Default)]
    struct Two {
        a: Option<u8>,
        b: Option<&'static str>,
    }
    layer_of_options!(Two { a, b });

    #[test]
    fn the_upper_layer_wins_and_the_lower_fills_the_gaps() {
        let flags = Two {
            a: Some(1),
            b: None,
        };
        let file = Two {
            a: Some(2),
            b: Some("file"),
        };
        let defaults = Two {
            a: Some(3),
            b: Some("default"),
        };
        assert_eq!(
            flags.over(file).over(defaults),
            Two {
                a: Some(1),
                b: Some("file")
            }
        );
        let mut slot = 5;
        set(&mut slot, None);
        assert_eq!(slot, 5);
        set(&mut slot, Some(6));
        assert_eq!(slot, 6);
    }
}
