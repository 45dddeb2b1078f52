//! A bot that plays a uniformly random legal action, for any game (same idea as random_bot.py).
//!
//! The bot wire (examples/README.md): one JSON object per line on stdin (game-start, event,
//! action-request, accepted, refused, game-over, and any type added later); the bot answers each
//! action-request with one line on stdout, flushed:
//!   {"type":"action","table":T,"request":N,"action":<one entry of legal>}
//! A range entry {"type":"raise","min":m,"max":M} is sent as {"type":"raise","amount":m}.
//!
//! Standard library only: a small JSON reader and writer below.
//! Build: cargo build --offline --release (in examples/bots/rust)   Run: target/release/random_bot [SEED]
use std::io::{self, BufRead, Write};

#[derive(Clone, Debug)]
enum Json { Null, Bool(bool), Num(String), Str(String), List(Vec<Json>), Map(Vec<(String, Json)>) }

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self { Json::Map(items) => items.iter().find(|(k, _)| k == key).map(|(_, v)| v), _ => None }
    }
    fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Num(n) => out.push_str(n),
            Json::Str(s) => write_str(s, out),
            Json::List(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() { if i > 0 { out.push(',') } v.write(out) }
                out.push(']');
            }
            Json::Map(items) => {
                out.push('{');
                for (i, (k, v)) in items.iter().enumerate() { if i > 0 { out.push(',') } write_str(k, out); out.push(':'); v.write(out) }
                out.push('}');
            }
        }
    }
}

fn write_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

struct Parser<'a> { s: &'a [u8], i: usize }

impl<'a> Parser<'a> {
    fn ws(&mut self) { while self.i < self.s.len() && b" \t\r\n".contains(&self.s[self.i]) { self.i += 1 } }
    fn eat(&mut self, c: u8) -> Option<()> { self.ws(); if self.s.get(self.i) == Some(&c) { self.i += 1; Some(()) } else { None } }
    fn value(&mut self) -> Option<Json> {
        self.ws();
        match *self.s.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut items = Vec::new();
                if self.eat(b'}').is_some() { return Some(Json::Map(items)) }
                loop {
                    self.ws();
                    let key = self.string()?;
                    self.eat(b':')?;
                    items.push((key, self.value()?));
                    if self.eat(b',').is_none() { self.eat(b'}')?; return Some(Json::Map(items)) }
                }
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                if self.eat(b']').is_some() { return Some(Json::List(items)) }
                loop {
                    items.push(self.value()?);
                    if self.eat(b',').is_none() { self.eat(b']')?; return Some(Json::List(items)) }
                }
            }
            b'"' => self.string().map(Json::Str),
            b't' | b'f' | b'n' => {
                for (word, v) in [("true", Json::Bool(true)), ("false", Json::Bool(false)), ("null", Json::Null)] {
                    if self.s[self.i..].starts_with(word.as_bytes()) { self.i += word.len(); return Some(v) }
                }
                None
            }
            _ => {
                let start = self.i;
                while self.i < self.s.len() && b"+-0123456789.eE".contains(&self.s[self.i]) { self.i += 1 }
                if self.i == start { return None }
                Some(Json::Num(String::from_utf8_lossy(&self.s[start..self.i]).into_owned()))
            }
        }
    }
    fn string(&mut self) -> Option<String> {
        if self.s.get(self.i) != Some(&b'"') { return None }
        self.i += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let c = *self.s.get(self.i)?;
            self.i += 1;
            match c {
                b'"' => return String::from_utf8(out).ok(),
                b'\\' => {
                    self.i += 1;
                    let ch = match *self.s.get(self.i - 1)? {
                        b'n' => '\n', b't' => '\t', b'r' => '\r', b'b' => '\u{8}', b'f' => '\u{c}',
                        b'u' => {
                            let hex = std::str::from_utf8(self.s.get(self.i..self.i + 4)?).ok()?;
                            self.i += 4;
                            char::from_u32(u32::from_str_radix(hex, 16).ok()?).unwrap_or('\u{fffd}')
                        }
                        other => other as char,
                    };
                    out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
                }
                _ => out.push(c),
            }
        }
    }
}

fn main() {
    let mut state: u64 = 88172645463325252 ^ std::env::args().nth(1).and_then(|s| s.parse::<u64>().ok()).unwrap_or(0).wrapping_mul(0x9E3779B97F4A7C15);
    let mut random = move || { state ^= state << 13; state ^= state >> 7; state ^= state << 17; state }; // xorshift64
    let stdout = io::stdout();
    for line in io::stdin().lock().split(b'\n') {
        let Ok(line) = line else { break };
        let Some(msg) = (Parser { s: &line, i: 0 }).value() else { continue }; // blank or unreadable: skip
        let (Some(Json::Str(kind)), Some(Json::List(legal))) = (msg.get("type"), msg.get("legal")) else { continue };
        if kind != "action-request" || legal.is_empty() { continue }
        let mut action = legal[(random() % legal.len() as u64) as usize].clone();
        if let (Json::Map(items), Some(min), Some(_)) = (&action, action.get("min"), action.get("max")) {
            let mut items: Vec<(String, Json)> = items.iter().filter(|(k, _)| k != "min" && k != "max").cloned().collect();
            items.push(("amount".to_string(), min.clone())); // a range: send amount = min
            action = Json::Map(items);
        }
        let answer = Json::Map(vec![
            ("type".into(), Json::Str("action".into())),
            ("table".into(), msg.get("table").cloned().unwrap_or(Json::Null)),
            ("request".into(), msg.get("request").cloned().unwrap_or(Json::Null)),
            ("action".into(), action),
        ]);
        let (mut text, mut out) = (String::new(), stdout.lock());
        answer.write(&mut text);
        if writeln!(out, "{}", text).and_then(|_| out.flush()).is_err() { break } // flushed: sent now
    }
}
