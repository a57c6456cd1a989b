//! `Array.prototype.sort` as V8 runs it, for the comparator pi uses on siblings
//! (`new Date(a.timestamp) - new Date(b.timestamp)`, where an invalid date makes the
//! result NaN, which the spec treats as "equal").
//!
//! For fewer than 64 elements V8's TimSort is a single run: `CountAndMakeRun` followed by
//! `BinaryInsertionSort`, reproduced here step for step, so even inconsistent comparisons
//! (NaN timestamps) give V8's order. Longer lists use a stable merge sort, which gives the
//! same order whenever the timestamps are all valid.

use std::cmp::Ordering;

/// `a - b` on millisecond timestamps, NaN mapped to 0 as the spec's SortCompare does.
fn cmp(a: f64, b: f64) -> Ordering {
    let d = a - b;
    if d < 0.0 {
        Ordering::Less
    } else if d > 0.0 {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// Sorts `items` by `key` the way V8 sorts with `(a, b) => key(a) - key(b)`.
pub fn sort_by_timestamp<T: Copy>(items: &mut [T], key: impl Fn(T) -> f64) {
    let n = items.len();
    if n < 2 {
        return;
    }
    if n < 64 {
        let run = count_and_make_run(items, &key);
        binary_insertion_sort(items, run, &key);
    } else {
        merge_sort(items, &key);
    }
}

fn count_and_make_run<T: Copy>(a: &mut [T], key: &impl Fn(T) -> f64) -> usize {
    let high = a.len();
    if high == 1 {
        return 1;
    }
    let mut run = 2;
    let descending = cmp(key(a[1]), key(a[0])) == Ordering::Less;
    let mut prev = a[1];
    for &cur in &a[2..high] {
        let order = cmp(key(cur), key(prev));
        if descending {
            if order != Ordering::Less {
                break;
            }
        } else if order == Ordering::Less {
            break;
        }
        prev = cur;
        run += 1;
    }
    if descending {
        a[..run].reverse();
    }
    run
}

fn binary_insertion_sort<T: Copy>(a: &mut [T], sorted: usize, key: &impl Fn(T) -> f64) {
    let start = if sorted == 0 { 1 } else { sorted };
    for s in start..a.len() {
        let pivot = a[s];
        let (mut left, mut right) = (0, s);
        while left < right {
            let mid = left + ((right - left) >> 1);
            if cmp(key(pivot), key(a[mid])) == Ordering::Less {
                right = mid;
            } else {
                left = mid + 1;
            }
        }
        a.copy_within(left..s, left + 1);
        a[left] = pivot;
    }
}

/// Stable top-down merge sort that tolerates any comparison results.
fn merge_sort<T: Copy>(a: &mut [T], key: &impl Fn(T) -> f64) {
    let mut buf = a.to_vec();
    let mut width = 1;
    let n = a.len();
    let mut src_is_a = true;
    while width < n {
        {
            let (src, dst): (&[T], &mut [T]) = if src_is_a { (&*a, &mut buf[..]) } else { (&buf[..], &mut *a) };
            let mut i = 0;
            while i < n {
                let mid = (i + width).min(n);
                let hi = (i + 2 * width).min(n);
                let (mut l, mut r, mut k) = (i, mid, i);
                while l < mid && r < hi {
                    if cmp(key(src[r]), key(src[l])) == Ordering::Less {
                        dst[k] = src[r];
                        r += 1;
                    } else {
                        dst[k] = src[l];
                        l += 1;
                    }
                    k += 1;
                }
                dst[k..k + (mid - l)].copy_from_slice(&src[l..mid]);
                k += mid - l;
                dst[k..k + (hi - r)].copy_from_slice(&src[r..hi]);
                i = hi;
            }
        }
        src_is_a = !src_is_a;
        width *= 2;
    }
    if !src_is_a {
        a.copy_from_slice(&buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(ts: &[f64]) -> Vec<usize> {
        let mut ix: Vec<usize> = (0..ts.len()).collect();
        sort_by_timestamp(&mut ix, |i| ts[i]);
        ix
    }

    #[test]
    fn stable_by_timestamp() {
        assert_eq!(sorted(&[9.0, 5.0]), vec![1, 0]);
        assert_eq!(sorted(&[5.0, 5.0, 1.0]), vec![2, 0, 1]);
        let long: Vec<f64> = (0..200).map(|i| (i % 7) as f64).collect();
        let got = sorted(&long);
        let mut want: Vec<usize> = (0..200).collect();
        want.sort_by(|&a, &b| long[a].partial_cmp(&long[b]).unwrap());
        assert_eq!(got, want);
    }

    #[test]
    fn nan_does_not_panic() {
        let ts = [3.0, f64::NAN, 1.0, 2.0, f64::NAN, 0.0];
        let got = sorted(&ts);
        assert_eq!(got.len(), 6);
        let long: Vec<f64> = (0..100).map(|i| if i % 3 == 0 { f64::NAN } else { (100 - i) as f64 }).collect();
        assert_eq!(sorted(&long).len(), 100);
    }
}
