//! A configuration moved to another currency: every amount (limits, caps, the fixed bonus stake,
//! fixed pays) multiplied or divided by the same number, so that it stands for the same money.

use pitboss_engine::config::{Currency, GameConfig};
use serde_json::Value;

/// How amounts change with the currency.
#[derive(Clone, Copy, Debug)]
pub enum Scale {
    /// Each amount divided by this (it must divide exactly).
    Divide(u64),
    /// Each amount multiplied by this.
    Multiply(u64),
}

impl Scale {
    /// One amount scaled.
    pub fn amount(self, amount: u64) -> u64 {
        match self {
            Scale::Divide(d) => {
                assert_eq!(amount % d, 0, "{amount} divides by {d} exactly");
                amount / d
            }
            Scale::Multiply(m) => amount.checked_mul(m).expect("fits"),
        }
    }
}

/// The fields of a configuration that hold money.
const MONEY: [&str; 8] = [
    "min",
    "max",
    "ante_cap",
    "street_cap",
    "bonus_cap",
    "game_cap",
    "bonus_stake",
    "fixed",
];

fn scale_value(value: &mut Value, scale: Scale, amounts: &mut usize) {
    match value {
        Value::Object(fields) => {
            for (key, field) in fields.iter_mut() {
                match field.as_u64() {
                    Some(amount) if MONEY.contains(&key.as_str()) => {
                        *field = Value::from(scale.amount(amount));
                        *amounts += 1;
                    }
                    _ => scale_value(field, scale, amounts),
                }
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| scale_value(v, scale, amounts)),
        _ => {}
    }
}

/// `config` in `currency`, every amount scaled; checked like any published configuration.
pub fn in_currency(config: &GameConfig, currency: Currency, scale: Scale) -> GameConfig {
    let mut value = serde_json::to_value(config).unwrap();
    let mut amounts = 0;
    scale_value(&mut value, scale, &mut amounts);
    assert!(amounts > 0, "the configuration has amounts to scale");
    value["name"] = Value::from(format!("{} in {}", config.name, currency.code));
    value["currency"] = serde_json::to_value(&currency).unwrap();
    let config = GameConfig::from_json(&serde_json::to_vec(&value).unwrap())
        .expect("the derived configuration validates");
    config.check_current().expect("under the current rules");
    config
}
