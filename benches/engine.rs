//! Engine benchmarks: hand evaluation throughput and the RNG (words, shuffles, deals).
//! Run: `cargo bench --bench engine` (numbers and the machine in `docs/PERFORMANCE.md`).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pitboss_engine::card::{Card, Deck};
use pitboss_engine::deal;
use pitboss_engine::game::GameId;
use pitboss_engine::hand::fortune::{self, SuitMasks};
use pitboss_engine::hand::{pai_gow, poker5, three_card};
use pitboss_engine::rng::Seed;

/// `n` hands of `K` cards, dealt from shuffles of `deck` by the project's own RNG.
fn hands<const K: usize>(deck: Deck, n: usize) -> Vec<[Card; K]> {
    let mut stream = Seed::from_bytes([7; 32]).stream();
    (0..n)
        .map(|_| {
            let cards = stream.shuffle(deck);
            std::array::from_fn(|i| cards[i])
        })
        .collect()
}

const N: usize = 4096;

fn evaluators(c: &mut Criterion) {
    let mut group = c.benchmark_group("evaluate");
    group.throughput(Throughput::Elements(N as u64));
    let five = hands::<5>(Deck::Standard52, N);
    group.bench_function("poker5", |b| {
        b.iter(|| {
            five.iter()
                .map(|h| poker5::evaluate_unchecked(black_box(h)).raw())
                .fold(0u32, u32::wrapping_add)
        })
    });
    group.bench_function("poker5_checked", |b| {
        b.iter(|| {
            five.iter()
                .filter_map(|h| poker5::evaluate(black_box(h)).ok())
                .count()
        })
    });
    let three = hands::<3>(Deck::Standard52, N);
    group.bench_function("three_card", |b| {
        b.iter(|| {
            three
                .iter()
                .map(|h| three_card::evaluate_unchecked(black_box(h)).category() as u32)
                .sum::<u32>()
        })
    });
    let pai_gow_five = hands::<5>(Deck::WithJoker53, N);
    group.bench_function("pai_gow_high", |b| {
        b.iter(|| {
            pai_gow_five
                .iter()
                .map(|h| pai_gow::evaluate_high_unchecked(black_box(h)).raw())
                .fold(0u32, u32::wrapping_add)
        })
    });
    let seven = hands::<7>(Deck::WithJoker53, N);
    group.bench_function("fortune7", |b| {
        b.iter(|| {
            seven
                .iter()
                .map(|h| fortune::classify_masks(SuitMasks::of(black_box(h))) as u32)
                .sum::<u32>()
        })
    });
    group.finish();
}

fn rng(c: &mut Criterion) {
    let seed = Seed::from_bytes([42; 32]);
    let mut group = c.benchmark_group("rng");
    group.throughput(Throughput::Elements(1024));
    group.bench_function("words", |b| {
        let mut stream = seed.stream();
        b.iter(|| {
            (0..1024)
                .map(|_| stream.next_word())
                .fold(0u32, u32::wrapping_add)
        })
    });
    group.throughput(Throughput::Elements(1));
    group.bench_function("shuffle52", |b| {
        let mut stream = seed.stream();
        b.iter(|| stream.shuffle(black_box(Deck::Standard52)))
    });
    group.bench_function("shuffle53", |b| {
        let mut stream = seed.stream();
        b.iter(|| stream.shuffle(black_box(Deck::WithJoker53)))
    });
    group.bench_function("derive_deal_mississippi", |b| {
        b.iter(|| deal::derive(GameId::MississippiStud, black_box(&seed)))
    });
    group.finish();
}

criterion_group!(benches, evaluators, rng);
criterion_main!(benches);
