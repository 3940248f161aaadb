//! How a client's address is counted in every per-address limit (the web server's and the
//! tournament director's).

use std::net::IpAddr;

/// The key an address is counted by in every per-address limit: IPv4 as it is (also when
/// written as IPv4-mapped IPv6), IPv6 by its /64 (one subscriber usually has a whole /64, and
/// can pick any address in it).
pub fn address_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let bits = u128::from(v6) & !((1u128 << 64) - 1);
                IpAddr::V6(bits.into())
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_counts_per_64_and_mapped_ipv4_as_ipv4() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(address_key(a), address_key(b));
        assert_ne!(address_key(a), address_key(c));
        assert_eq!(address_key(a), "2001:db8:1:2::".parse::<IpAddr>().unwrap());
        let v4: IpAddr = "::ffff:192.0.2.1".parse().unwrap();
        assert_eq!(address_key(v4), "192.0.2.1".parse::<IpAddr>().unwrap());
    }
}
