//! Protobuf definitions for `k6/net/grpc`: `.proto` files compiled by
//! protox (once per set of files, for every VU), their methods looked up by
//! name, and messages between JSON and the wire (prost-reflect's protobuf
//! JSON mapping, as k6's protojson: lowerCamelCase names, unpopulated
//! fields emitted, 64-bit integers as strings, enums by name).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use prost::Message as _;
use prost_reflect::{DescriptorPool, DynamicMessage, MethodDescriptor, SerializeOptions};

/// Pools by their files (import paths and file names): each VU's init
/// code loads the same ones.
static POOLS: Mutex<Vec<(String, DescriptorPool)>> = Mutex::new(Vec::new());

/// The pool of `files` (found under `import_paths`, then `script_dir`),
/// with their imports; k6's words for what is wrong.
pub fn load(
    script_dir: &Path,
    import_paths: &[String],
    files: &[String],
) -> Result<DescriptorPool, String> {
    let mut includes: Vec<PathBuf> = import_paths.iter().map(|p| script_dir.join(p)).collect();
    includes.push(script_dir.to_path_buf());
    let key = format!("{includes:?} {files:?}");
    let mut pools = POOLS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, p)) = pools.iter().find(|(k, _)| *k == key) {
        return Ok(p.clone());
    }
    // A name is looked up under the include paths, as protoc does; one
    // outside all of them (`../protos/a.proto` from the script's folder,
    // as k6 takes it) has its own folder included.
    let mut paths = Vec::new();
    for f in files {
        let found = includes.iter().map(|i| i.join(f)).find(|p| p.is_file());
        let path = found.ok_or_else(|| format!("open {f}: no such file or directory"))?;
        let real = path.canonicalize().unwrap_or_else(|_| path.clone());
        let inside = includes
            .iter()
            .filter_map(|i| i.canonicalize().ok())
            .any(|i| real.starts_with(i));
        if !inside && let Some(dir) = real.parent() {
            // First: its name must not be taken by a file of the same
            // name in an include path.
            includes.insert(0, dir.to_path_buf());
            paths.push(real);
        } else {
            paths.push(path);
        }
    }
    let mut c = protox::Compiler::new(&includes).map_err(|e| e.to_string())?;
    c.include_imports(true);
    for path in &paths {
        c.open_file(path).map_err(|e| e.to_string())?;
    }
    let pool = c.descriptor_pool();
    pools.push((key, pool.clone()));
    Ok(pool)
}

/// The pool of a protoset file (a `FileDescriptorSet`, as `protoc
/// --descriptor_set_out` writes it), relative to `script_dir`.
pub fn load_protoset(script_dir: &Path, file: &str) -> Result<DescriptorPool, String> {
    let path = script_dir.join(file);
    let bytes =
        std::fs::read(&path).map_err(|e| format!("couldn't open protoset: open {file}: {e}"))?;
    DescriptorPool::decode(bytes.as_slice())
        .map_err(|e| format!("couldn't unmarshal protoset file {file:?}: {e}"))
}

/// k6's MethodInfo of each method of the pool's services.
pub fn method_infos(pool: &DescriptorPool) -> Vec<serde_json::Value> {
    pool.services()
        .flat_map(|s| s.methods().collect::<Vec<_>>())
        .map(|m| {
            serde_json::json!({
                "package": m.parent_service().package_name(),
                "service": m.parent_service().name(),
                "full_method": format!("/{}/{}", m.parent_service().full_name(), m.name()),
                "name": m.name(),
                "is_client_stream": m.is_client_streaming(),
                "is_server_stream": m.is_server_streaming(),
            })
        })
        .collect()
}

/// The method `name` names (`pkg.Service/Method`, with or without the
/// leading `/`), and its path (`/pkg.Service/Method`).
pub fn method(pools: &[DescriptorPool], name: &str) -> Result<(MethodDescriptor, String), String> {
    let path = if name.starts_with('/') {
        name.to_string()
    } else {
        format!("/{name}")
    };
    let (service, m) = path[1..]
        .rsplit_once('/')
        .ok_or_else(|| format!("method {path:?} not found in file descriptors"))?;
    pools
        .iter()
        .filter_map(|p| p.get_service_by_name(service))
        .find_map(|s| s.methods().find(|x| x.name() == m))
        .map(|d| (d, path.clone()))
        .ok_or_else(|| format!("method {path:?} not found in file descriptors"))
}

/// A message `json` of the method's input type (a call's request, a
/// stream's `write`), encoded.
pub fn encode(m: &MethodDescriptor, json: &str) -> Result<Vec<u8>, String> {
    let mut de = serde_json::Deserializer::from_str(json);
    let msg = DynamicMessage::deserialize(m.input(), &mut de)
        .map_err(|e| format!("unable to serialise request object to protocol buffer: {e}"))?;
    Ok(msg.encode_to_vec())
}

/// A response message as JSON, as k6 gives it to the script.
pub fn decode(m: &MethodDescriptor, bytes: &[u8]) -> Result<serde_json::Value, String> {
    let msg = DynamicMessage::decode(m.output(), bytes)
        .map_err(|e| format!("unable to decode the response message: {e}"))?;
    let opts = SerializeOptions::new().skip_default_fields(false);
    msg.serialize_with_options(serde_json::value::Serializer, &opts)
        .map_err(|e| format!("unable to convert response object to JSON: {e}"))
}
