//! The log-in flood of the security audit, against a server already running (started with
//! `--trusted-proxy 127.0.0.1`, so that the `X-Forwarded-For` of each request names the
//! visitor): ADDRESSES visitors each send PER_ADDRESS log-ins with wrong passwords at once,
//! and meanwhile a real user (at an address of their own) logs in with the right password,
//! again and again. Prints the answers the flood got, and each of the real user's log-ins
//! with its time. `scripts/attack-log-in-flood` starts the server, runs this, and reads the
//! server's peak memory and threads.
//!
//! ```text
//! cargo run --release -p damasi-web --example log_in_flood -- 127.0.0.1:8080 200 10 NAME PASSWORD
//! ```

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One `POST /api/account/login` as visitor `from`; the status code (0: no answer in 60 s).
async fn log_in(server: SocketAddr, from: &str, name: &str, password: &str) -> u16 {
    let body = json!({"name": name, "password": password}).to_string();
    let req = format!(
        "POST /api/account/login HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
         X-Forwarded-For: {from}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let ask = async {
        let mut s = TcpStream::connect(server).await.ok()?;
        s.write_all(req.as_bytes()).await.ok()?;
        let mut head = [0u8; 16];
        let n = s.read(&mut head).await.ok()?;
        let text = String::from_utf8_lossy(&head[..n]).into_owned();
        let mut rest = Vec::new();
        let _ = s.read_to_end(&mut rest).await;
        text.split_whitespace().nth(1)?.parse().ok()
    };
    tokio::time::timeout(Duration::from_secs(60), ask)
        .await
        .ok()
        .flatten()
        .unwrap_or(0)
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [server, addresses, per_address, name, password] = args.as_slice() else {
        eprintln!("usage: log_in_flood SERVER ADDRESSES PER_ADDRESS NAME PASSWORD");
        std::process::exit(2);
    };
    let server: SocketAddr = server.parse().expect("SERVER: an address:port");
    let addresses: u32 = addresses.parse().expect("ADDRESSES: a number");
    let per_address: u32 = per_address.parse().expect("PER_ADDRESS: a number");
    let start = Instant::now();
    let mut flood = Vec::new();
    for a in 0..addresses {
        // Documentation addresses (198.18.0.0/15, for benchmarks): one a visitor.
        let from = format!("198.18.{}.{}", a / 250, a % 250 + 1);
        for i in 0..per_address {
            let from = from.clone();
            flood.push(tokio::spawn(async move {
                let guess = format!("a wrong guess {i}");
                log_in(server, &from, &format!("victim{a}"), &guess).await
            }));
        }
    }
    // The real user, while the flood is on.
    let (name, password) = (name.clone(), password.clone());
    let user = tokio::spawn(async move {
        let mut tries = Vec::new();
        for _ in 0..5 {
            tokio::time::sleep(Duration::from_millis(500)).await;
            let t = Instant::now();
            let code = log_in(server, "192.0.2.77", &name, &password).await;
            tries.push((code, t.elapsed()));
        }
        tries
    });
    let mut codes = BTreeMap::new();
    for f in flood {
        *codes.entry(f.await.unwrap_or(0)).or_insert(0u32) += 1;
    }
    let flood_time = start.elapsed();
    println!(
        "flood: {} log-ins from {addresses} addresses in {:.1} s: {codes:?} (status: count)",
        addresses * per_address,
        flood_time.as_secs_f64()
    );
    for (i, (code, t)) in user.await.unwrap_or_default().iter().enumerate() {
        println!(
            "real user's log-in {}: {code} in {:.0} ms",
            i + 1,
            t.as_secs_f64() * 1000.0
        );
    }
}
