//! A minimal stand-alone runner of the origin library (no CLI crate needed):
//! `origin_serve ADDR [RECIPE_FILE] [WORKERS]`. `bench/origin.sh` falls back to
//! it when the `loadlab` binary does not build.

fn main() {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:8080".into());
    let recipes = match args.next() {
        Some(path) => {
            let text =
                std::fs::read_to_string(&path).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
            loadlab_origin::parse_recipes(&text).unwrap_or_else(|e| fail(&format!("{path}: {e}")))
        }
        None => Vec::new(),
    };
    let workers = args.next().and_then(|w| w.parse().ok());
    let addr = addr
        .parse()
        .unwrap_or_else(|e| fail(&format!("{addr}: {e}")));
    let config = loadlab_origin::OriginConfig {
        recipes,
        workers,
        ..Default::default()
    };
    let handle = loadlab_origin::spawn(addr, config).unwrap_or_else(|e| fail(&e.to_string()));
    eprintln!("origin_serve: listening on {}", handle.url());
    loop {
        std::thread::park();
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("origin_serve: {msg}");
    std::process::exit(1);
}
