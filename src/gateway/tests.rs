//! The gateway's own parts, without servers: meta-tools, listing, search
//! answers, name and argument checks, the session breaker.
