//! One job over many items on every core, results in order: the registry's loads and the
//! audit of a collection. Holds the splitting only, no job.

/// `f` of each item, in order, on as many threads as there are cores (at most 8) when there
/// are many (64 or more); on the calling thread otherwise.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    if items.len() < 64 || threads < 2 {
        return items.iter().map(&f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|sc| {
        let workers: Vec<_> =
            items.chunks(chunk).map(|part| (sc.spawn(move || part.iter().map(f).collect::<Vec<_>>()), part)).collect();
        // A worker that panicked has its part done again here.
        workers.into_iter().flat_map(|(w, part)| w.join().unwrap_or_else(|_| part.iter().map(f).collect())).collect()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_keep_the_order_of_the_items() {
        let items: Vec<u32> = (0..1000).collect();
        assert_eq!(super::par_map(&items, |i| i * 2), items.iter().map(|i| i * 2).collect::<Vec<_>>());
    }
}
