//! How a screen declares its actions in its own folder, and how the
//! registry lists the screens' contexts: two macros, so that a screen's
//! action is typed ([`Action::Screen`](super::Action::Screen)) and named
//! nowhere but its folder and the registry's line.

/// A screen's actions, in `screen/<name>/actions.rs`: its context (the
/// registry's name for it), the prefix of its actions' names and its
/// heading in help; then each action in help order: its variant, its name
/// in the keymap, a word or two for a key line, what it does for help, and
/// its default keys (as a config file writes them; the user's `[keys]`
/// replace them).
///
/// It declares `Act` (the screen's actions), `PREFIX` and `TITLE`, and
/// spells each action as the rest of the explorer does: `Action::` and
/// the variant for the action (and `each::` and the variant, for a `use
/// each::*`), `Context::` and the registry's name for its context.
macro_rules! screen_actions {
    (
        $context:ident, $prefix:literal, $title:literal $(, only_with_mcp_servers = $mcp:literal)?;
        $( $variant:ident = $name:literal, $short:literal, $describe:literal, [$($key:literal),* $(,)?]; )*
    ) => {
        /// This screen's actions, in help order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Act {
            $( #[doc = $describe] $variant, )*
        }

        /// The prefix of its actions' names in the keymap.
        pub const PREFIX: &str = $prefix;
        /// The heading of its section in help.
        pub const TITLE: &str = $title;
        /// Whether help shows it only when the catalog has MCP servers.
        pub const ONLY_WITH_MCP_SERVERS: bool = false $( || $mcp )?;

        impl Act {
            /// Every action of the screen, in help order.
            pub const ALL: &'static [Act] = &[ $( Act::$variant, )* ];

            /// The name in the keymap (`tune_cap_down`).
            pub fn name(self) -> &'static str {
                match self { $( Act::$variant => $name, )* }
            }

            /// A word or two for a key line.
            pub fn short(self) -> &'static str {
                match self { $( Act::$variant => $short, )* }
            }

            /// What it does, for the help screen.
            pub fn describe(self) -> &'static str {
                match self { $( Act::$variant => $describe, )* }
            }

            /// Its keys when the config file sets none.
            pub fn default_keys(self) -> &'static [&'static str] {
                match self { $( Act::$variant => &[$($key),*], )* }
            }
        }

        /// Each action by itself (`use actions::*` names them bare).
        pub mod each {
            $(
                #[allow(non_upper_case_globals)]
                #[doc = $describe]
                pub const $variant: $crate::tui::action::Action = $crate::tui::action::Action::$variant;
            )*
        }

        #[allow(non_upper_case_globals)]
        impl $crate::tui::action::Action {
            $(
                #[doc = $describe]
                pub const $variant: $crate::tui::action::Action = $crate::tui::action::Action::Screen(
                    $crate::tui::screen::ScreenAction::$context(Act::$variant),
                );
            )*
        }

        #[allow(non_upper_case_globals)]
        impl $crate::tui::action::Context {
            #[doc = $title]
            pub const $context: $crate::tui::action::Context = $crate::tui::action::Context::Screen(
                $crate::tui::screen::ScreenContext::$context,
            );
        }
    };
}

/// The screens' contexts, in the registry (`screen/mod.rs`), in the order
/// help lists them: each its name and the module declaring its actions
/// (with [`screen_actions!`]). It declares `ScreenContext` and
/// `ScreenAction`, which [`Context::Screen`](super::Context::Screen) and
/// [`Action::Screen`](super::Action::Screen) carry.
macro_rules! screen_contexts {
    ($( $context:ident: $($module:ident)::+; )*) => {
        /// A screen's own context (see `action.rs`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ScreenContext {
            $( $context, )*
        }

        /// A screen's own action, as its folder declares it.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ScreenAction {
            $( $context($($module)::+::Act), )*
        }

        impl ScreenContext {
            /// Every screen's context, in help order.
            pub const ALL: &'static [ScreenContext] = &[ $( ScreenContext::$context, )* ];

            /// The heading of its section in help.
            pub fn title(self) -> &'static str {
                match self { $( ScreenContext::$context => $($module)::+::TITLE, )* }
            }

            /// The prefix of its actions' names.
            pub fn prefix(self) -> &'static str {
                match self { $( ScreenContext::$context => $($module)::+::PREFIX, )* }
            }

            /// Whether help shows it only when the catalog has MCP servers.
            pub fn only_with_mcp_servers(self) -> bool {
                match self { $( ScreenContext::$context => $($module)::+::ONLY_WITH_MCP_SERVERS, )* }
            }
        }

        impl ScreenAction {
            /// How many actions the screens declare.
            pub const COUNT: usize = 0 $( + $($module)::+::Act::ALL.len() )*;

            /// The `i`th of every screen's actions, in help order.
            #[allow(unused_assignments)]
            pub const fn nth(i: usize) -> ScreenAction {
                let mut before = 0;
                $(
                    let all = $($module)::+::Act::ALL;
                    if i < before + all.len() {
                        return ScreenAction::$context(all[i - before]);
                    }
                    before += all.len();
                )*
                panic!("no such screen action")
            }

            /// The screen where its keys are looked up.
            pub const fn context(self) -> ScreenContext {
                match self { $( ScreenAction::$context(_) => ScreenContext::$context, )* }
            }

            /// The name in the keymap.
            pub fn name(self) -> &'static str {
                match self { $( ScreenAction::$context(a) => a.name(), )* }
            }

            /// A word or two for a key line.
            pub fn short(self) -> &'static str {
                match self { $( ScreenAction::$context(a) => a.short(), )* }
            }

            /// What it does, for the help screen.
            pub fn describe(self) -> &'static str {
                match self { $( ScreenAction::$context(a) => a.describe(), )* }
            }

            /// Its keys when the config file sets none.
            pub fn default_keys(self) -> &'static [&'static str] {
                match self { $( ScreenAction::$context(a) => a.default_keys(), )* }
            }
        }

        /// As the screen's own (`TuneCapDown`).
        impl std::fmt::Debug for ScreenAction {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self { $( ScreenAction::$context(a) => a.fmt(f), )* }
            }
        }
    };
}

pub(crate) use {screen_actions, screen_contexts};
