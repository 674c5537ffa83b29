//! Whose is a loopback connection: the process that holds the client end of a TCP connection,
//! found through Linux's `/proc` (the socket's inode in `/proc/net/tcp` or `tcp6`, then the
//! processes whose descriptors name that inode), so that a KGP agent's port is played only by
//! the agent the arena started (#48). Elsewhere there is no `/proc` to look in: the answer is
//! "unknown".

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Whether the client end of the TCP connection from `client` to `server` (as the server's
/// `accept` saw it) is held by the process `root` or one of its descendants, or by a process
/// of the session `root` leads. `None` when it cannot be told (no `/proc` to read).
pub fn connection_held_by(root: u32, client: SocketAddr, server: SocketAddr) -> Option<bool> {
    let mut inodes = Vec::new();
    let mut readable = false;
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        if let Ok(text) = std::fs::read_to_string(table) {
            readable = true;
            inodes.extend(client_inodes(&text, client, server));
        }
    }
    if !readable {
        return None;
    }
    if inodes.is_empty() {
        // The client end is gone (closed) or in another network namespace: not the agent's.
        return Some(false);
    }
    let wanted: HashSet<String> = inodes.iter().map(|i| format!("socket:[{i}]")).collect();
    Some(family(root).into_iter().any(|pid| holds(pid, &wanted)))
}

/// The inodes of the sockets whose local address is `client` and remote address `server`, in
/// one `/proc/net/tcp{,6}` table.
fn client_inodes(table: &str, client: SocketAddr, server: SocketAddr) -> Vec<u64> {
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (local, remote, inode) = (fields.get(1)?, fields.get(2)?, fields.get(9)?);
            (same(parse_address(local)?, client) && same(parse_address(remote)?, server))
                .then(|| inode.parse().ok())
                .flatten()
        })
        .collect()
}

/// Two socket addresses, an IPv4 address and its IPv4-mapped IPv6 form counting as one.
fn same(a: SocketAddr, b: SocketAddr) -> bool {
    let v4 = |ip: IpAddr| match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    a.port() == b.port() && v4(a.ip()) == v4(b.ip())
}

/// `0100007F:1F90` (IPv4: the address as a 32-bit word in host order, here little-endian) or
/// its 32-hex-digit IPv6 form (four such words), then the port in hex.
fn parse_address(text: &str) -> Option<SocketAddr> {
    let (ip, port) = text.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let word = |s: &str| u32::from_str_radix(s, 16).ok().map(u32::to_le_bytes);
    let ip = match ip.len() {
        8 => IpAddr::V4(Ipv4Addr::from(word(ip)?)),
        32 => {
            let mut bytes = [0u8; 16];
            for k in 0..4 {
                bytes[4 * k..4 * k + 4].copy_from_slice(&word(&ip[8 * k..8 * k + 8])?);
            }
            IpAddr::V6(Ipv6Addr::from(bytes))
        }
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

/// `root`, its descendants and the members of the session it leads, from `/proc/*/stat`.
fn family(root: u32) -> Vec<u32> {
    let mut parents: HashMap<u32, u32> = HashMap::new();
    let mut found = vec![root];
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Some((ppid, session)) = stat_fields(pid) else {
            continue;
        };
        parents.insert(pid, ppid);
        if session == root && pid != root {
            found.push(pid);
        }
    }
    // Descendants: a pid whose chain of parents reaches `root`.
    for &pid in parents.keys() {
        let mut at = pid;
        for _ in 0..64 {
            match parents.get(&at) {
                Some(&parent) if parent == root => {
                    found.push(pid);
                    break;
                }
                Some(&parent) if parent > 1 => at = parent,
                _ => break,
            }
        }
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// The parent and the session of `pid` (fields 4 and 6 of `/proc/PID/stat`).
fn stat_fields(pid: u32) -> Option<(u32, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut rest = stat[stat.rfind(')')? + 1..].split_whitespace();
    let ppid = rest.nth(1)?.parse().ok()?;
    let session = rest.nth(1)?.parse().ok()?;
    Some((ppid, session))
}

/// Whether a descriptor of `pid` is one of the sockets `wanted` (`socket:[INODE]`).
fn holds(pid: u32, wanted: &HashSet<String>) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        std::fs::read_link(fd.path())
            .is_ok_and(|target| wanted.contains(target.to_string_lossy().as_ref()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_read_as_the_kernel_writes_them() {
        assert_eq!(
            parse_address("0100007F:1F90"),
            Some("127.0.0.1:8080".parse().unwrap())
        );
        let mapped = parse_address("0000000000000000FFFF00000100007F:0050").unwrap();
        assert!(same(mapped, "127.0.0.1:80".parse().unwrap()));
        assert_eq!(parse_address("zz:1"), None);
    }

    #[test]
    fn the_client_end_is_found_by_both_addresses() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
   0: 0100007F:A000 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 111 1\n\
   1: 0100007F:1F90 0100007F:A000 01 00000000:00000000 00:00000000 00000000     0        0 222 1\n";
        let client: SocketAddr = "127.0.0.1:40960".parse().unwrap();
        let server: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        assert_eq!(client_inodes(table, client, server), vec![111]);
        assert_eq!(client_inodes(table, server, client), vec![222]);
    }

    /// A real connection from this process: held by this process, and not by a process that is
    /// neither it nor one of its own.
    #[test]
    fn a_real_connection_is_held_by_its_process() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let server = listener.local_addr().unwrap();
        let stream = std::net::TcpStream::connect(server).unwrap();
        let (_accepted, client) = listener.accept().unwrap();
        assert_eq!(
            connection_held_by(std::process::id(), client, server),
            Some(true)
        );
        let mut other = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        assert_eq!(connection_held_by(other.id(), client, server), Some(false));
        let _ = other.kill();
        let _ = other.wait();
        drop(stream);
    }
}
