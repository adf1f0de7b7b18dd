//! Serves the tests' gRPC Greeter on 127.0.0.1 and prints its address
//! (for trying a script by hand).

fn main() {
    let addr = loadlab_testkit::grpc::greeter();
    println!("{addr}");
    loop {
        std::thread::park();
    }
}
