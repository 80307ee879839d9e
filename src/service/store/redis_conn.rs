//! One connection to the shared store, whatever its shape: a single Redis
//! or Valkey server (a multiplexed connection that reconnects by itself), or
//! a Redis Cluster (a connection per node that follows the cluster's
//! `MOVED` and `ASK` answers, learns the new slot map after a failover and
//! reconnects). Both connect lazily: a server starts, and answers the
//! searches that need no session, while the store is down.

use std::time::Duration;

use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{Route, RoutingInfo, SingleNodeRoutingInfo, SlotAddr};
use redis::{Cmd, Pipeline, RedisFuture, RedisResult, Value};

/// The time limits of every store call: a store that does not answer makes
/// a request wait at most about this long, then fail.
const CONNECT: Duration = Duration::from_secs(1);
const RESPONSE: Duration = Duration::from_secs(2);

#[derive(Clone)]
pub(crate) enum Conn {
    Single(ConnectionManager),
    Cluster(ClusterConnection),
}

impl Conn {
    pub(crate) fn single(url: &str) -> RedisResult<Conn> {
        let client = redis::Client::open(url)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(CONNECT))
            .set_response_timeout(Some(RESPONSE))
            .set_number_of_retries(1)
            .set_min_delay(Duration::from_millis(20))
            .set_max_delay(Duration::from_millis(500));
        Ok(Conn::Single(ConnectionManager::new_lazy_with_config(
            client, config,
        )?))
    }

    /// A cluster reached through any of `nodes` (each a `redis://` URL).
    pub(crate) fn cluster(nodes: &[String]) -> RedisResult<Conn> {
        let client = redis::cluster::ClusterClientBuilder::new(nodes.to_vec())
            .connection_timeout(CONNECT)
            .response_timeout(RESPONSE)
            // A failover takes the cluster a few seconds (its node
            // timeout); a call retries through it, within these waits.
            .retries(6)
            .min_retry_wait(50)
            .max_retry_wait(1000)
            .build()?;
        let config = redis::cluster::ClusterConfig::new()
            .set_connection_timeout(CONNECT)
            .set_response_timeout(RESPONSE);
        Ok(Conn::Cluster(
            client.get_pending_async_connection_with_config(config),
        ))
    }

    /// Waits up to `ms` for `replicas` replicas to hold every write made so
    /// far on the server that holds `key`; the number that do.
    pub(crate) async fn wait_replicas(
        &mut self,
        key: &str,
        replicas: u32,
        ms: u64,
    ) -> RedisResult<u32> {
        let mut wait = redis::cmd("WAIT");
        wait.arg(replicas).arg(ms);
        match self {
            Conn::Single(c) => wait.query_async(c).await,
            Conn::Cluster(c) => {
                let route = Route::with_key(key, SlotAddr::Master);
                let routing = RoutingInfo::SingleNode(SingleNodeRoutingInfo::SpecificNode(route));
                let v = c.route_command(wait, routing).await?;
                Ok(redis::from_redis_value(v)?)
            }
        }
    }
}

impl Conn {
    /// The replicas connected to the primary that holds `key` (Redis
    /// `ROLE`): a write there can be confirmed by at most this many.
    pub(crate) async fn connected_replicas(&mut self, key: &str) -> RedisResult<u32> {
        let role = redis::cmd("ROLE");
        let v: Value = match self {
            Conn::Single(c) => role.query_async(c).await?,
            Conn::Cluster(c) => {
                let route = Route::with_key(key, SlotAddr::Master);
                let routing = RoutingInfo::SingleNode(SingleNodeRoutingInfo::SpecificNode(route));
                c.route_command(role, routing).await?
            }
        };
        Ok(replicas_in_role(&v))
    }
}

/// The replicas a `ROLE` answer lists: `["master", offset, [[ip, port,
/// offset], ...]]` (any other role has none of its own).
fn replicas_in_role(v: &Value) -> u32 {
    let Value::Array(parts) = v else { return 0 };
    let is_master = match parts.first() {
        Some(Value::BulkString(b)) => b.as_slice() == b"master",
        Some(Value::SimpleString(s)) => s == "master",
        _ => false,
    };
    match parts.get(2) {
        Some(Value::Array(replicas)) if is_master => {
            u32::try_from(replicas.len()).unwrap_or(u32::MAX)
        }
        _ => 0,
    }
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Single(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        cmd: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Conn::Single(c) => c.req_packed_commands(cmd, offset, count),
            Conn::Cluster(c) => c.req_packed_commands(cmd, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Single(c) => c.get_db(),
            Conn::Cluster(c) => c.get_db(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bulk(s: &str) -> Value {
        Value::BulkString(s.as_bytes().to_vec())
    }

    #[test]
    fn a_role_answer_gives_its_primarys_replicas() {
        let replica = Value::Array(vec![bulk("127.0.0.1"), bulk("7001"), bulk("99")]);
        let master = |n: usize| {
            Value::Array(vec![
                bulk("master"),
                Value::Int(99),
                Value::Array(vec![replica.clone(); n]),
            ])
        };
        assert_eq!(replicas_in_role(&master(0)), 0);
        assert_eq!(replicas_in_role(&master(2)), 2);
        let slave = Value::Array(vec![
            bulk("slave"),
            bulk("127.0.0.1"),
            Value::Int(7000),
            bulk("connected"),
            Value::Int(99),
        ]);
        assert_eq!(replicas_in_role(&slave), 0);
        assert_eq!(replicas_in_role(&Value::Nil), 0);
    }
}
