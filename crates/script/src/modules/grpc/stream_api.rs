//! The natives `grpc.Stream` (grpc.js) calls: open, write, end, and the
//! VU's event loop's part (whether a VU has streams, wait for and take
//! their events, drop them when its iteration is over). Each stream is a
//! `grpc_streams` sample, each message written or read a
//! `grpc_streams_msgs_sent` or `grpc_streams_msgs_received` one, and its
//! end a `grpc_req_duration` one with its `status`, as in k6.

use std::rc::Rc;
use std::time::Duration;

use rquickjs::function::Opt;
use rquickjs::{Ctx, Function, Object, Value};

use super::{call_params, call_tags, proto, stream, vu_conn};
use crate::js::vu;
use crate::modules::common::throw_go;
use crate::modules::common::wait_on;
use crate::modules::counted::add_bytes as network;
use crate::state::run_state::RunState;
use crate::system_tags::SystemTags;

pub(super) fn install<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<RunState>,
) -> rquickjs::Result<()> {
    let sh = shared.clone();
    k6.set(
        "grpcStreamOpen",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>,
                  id: u32,
                  method: String,
                  params: Opt<Object<'js>>|
                  -> rquickjs::Result<u32> {
                let (pools, conn) = vu_conn(
                    &ctx,
                    id,
                    "creating a gRPC stream in the init context is not supported",
                    "invalid GRPC Stream's client: ",
                )?;
                let (desc, path) =
                    proto::method(&pools, &method).map_err(|e| throw_go(&ctx, &e))?;
                let p = call_params(&ctx, params.0.as_ref())?;
                let vu_id = vu::current();
                let tags = call_tags(&sh, vu_id, &conn.addr, &path, &p.tags);
                sh.add_vu_named(vu_id, "grpc_streams", 1.0, tags.clone());
                stream::open(conn, vu_id, desc, &path, &p.metadata, tags, p.timeout)
                    .map_err(|e| throw_go(&ctx, &format!("failed to create a new stream: {e}")))
            },
        )?,
    )?;
    let sh = shared.clone();
    k6.set(
        "grpcStreamWrite",
        Function::new(
            ctx.clone(),
            move |sid: u32, json: String| -> rquickjs::Result<()> {
                let Some((desc, tags, vu_id)) = stream::STREAMS.with(|s| {
                    s.borrow()
                        .get(&sid)
                        .map(|st| (st.desc.clone(), st.tags.clone(), st.vu))
                }) else {
                    return Ok(());
                };
                // A message that does not encode ends the stream with an
                // `error` event (code 2, Unknown) and `end` at the event
                // loop's next turn, as in k6; `write` itself returns.
                let msg = match proto::encode(&desc, &json) {
                    Ok(msg) => msg,
                    Err(e) => {
                        let why = e.replacen("unable to serialise", "can't serialise", 1);
                        stream::fail(sid, 2, why);
                        return Ok(());
                    }
                };
                if stream::write(sid, &msg) {
                    sh.add_vu_named(vu_id, "grpc_streams_msgs_sent", 1.0, tags);
                }
                // A method whose client sends one message: its request side
                // ends with it, as gRPC ends it (the server waits for that).
                if !desc.is_client_streaming() {
                    stream::end(sid);
                }
                Ok(())
            },
        )?,
    )?;
    k6.set("grpcStreamEnd", Function::new(ctx.clone(), stream::end)?)?;
    k6.set("grpcStreamLive", Function::new(ctx.clone(), stream::live)?)?;
    k6.set(
        "grpcStreamDrop",
        Function::new(ctx.clone(), stream::drop_vu)?,
    )?;
    let sh = shared.clone();
    k6.set(
        "grpcStreamStep",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, vu_id: usize, wait_ms: f64| -> rquickjs::Result<Value<'js>> {
                let wait = (wait_ms >= 0.0).then(|| Duration::from_secs_f64(wait_ms / 1000.0));
                let events = wait_on(&ctx, "gRPC streams", stream::next_events(vu_id, wait))?;
                let mut out = Vec::new();
                for (sid, e) in events {
                    out.push(event_json(&sh, sid, e));
                }
                ctx.json_parse(serde_json::Value::Array(out).to_string())
            },
        )?,
    )?;
    Ok(())
}

/// One event as grpc.js dispatches it: `{sid, type: 'data', message}`, or
/// `{sid, type: 'end', error}` (`error` null for status OK), the stream's
/// samples made on the way.
fn event_json(sh: &RunState, sid: u32, e: stream::Event) -> serde_json::Value {
    use serde_json::json;
    match e {
        stream::Event::Data(bytes) => {
            let Some((desc, tags, vu_id)) = stream::STREAMS.with(|s| {
                s.borrow()
                    .get(&sid)
                    .map(|st| (st.desc.clone(), st.tags.clone(), st.vu))
            }) else {
                return json!({ "sid": sid, "type": "none" });
            };
            sh.add_vu_named(vu_id, "grpc_streams_msgs_received", 1.0, tags);
            match proto::decode(&desc, &bytes) {
                Ok(m) => json!({ "sid": sid, "type": "data", "message": m }),
                Err(why) => {
                    json!({ "sid": sid, "type": "end", "error": { "code": 13, "details": [], "message": why } })
                }
            }
        }
        stream::Event::End(status, message) => {
            let Some(st) = stream::remove(sid) else {
                return json!({ "sid": sid, "type": "none" });
            };
            let mut tags = st.tags.clone();
            if sh.sys.has(SystemTags::STATUS) {
                tags.push(("status".into(), status.to_string()));
            }
            sh.add_vu_named(
                st.vu,
                "grpc_req_duration",
                st.started.elapsed().as_secs_f64() * 1e3,
                tags,
            );
            let (sent, received) = st.conn.bytes();
            network(
                sh,
                st.vu,
                sent - st.counts_before.0,
                received - st.counts_before.1,
            );
            let error =
                (status != 0).then(|| json!({ "code": status, "details": [], "message": message }));
            json!({ "sid": sid, "type": "end", "error": error })
        }
    }
}
