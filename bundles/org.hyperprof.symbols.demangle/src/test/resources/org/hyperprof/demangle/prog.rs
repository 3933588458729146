mod outer {
    pub mod inner {
        pub struct Point<T> { pub x: T, pub y: T }
        impl<T: Copy + std::ops::Add<Output = T>> Point<T> {
            #[inline(never)]
            pub fn sum(&self) -> T { self.x + self.y }
        }
        pub trait Shape { fn area(&self) -> f64; }
        pub struct Square(pub f64);
        impl Shape for Square {
            #[inline(never)]
            fn area(&self) -> f64 { self.0 * self.0 }
        }
        impl std::fmt::Display for Square {
            fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result { write!(f, "sq{}", self.0) }
        }
    }
}
#[inline(never)]
fn apply<F: Fn(i32) -> i32>(f: F, v: i32) -> i32 { f(v) }
#[inline(never)]
fn generic_len<T>(v: &[T]) -> usize { v.len() }
fn main() {
    use outer::inner::*;
    let p = Point { x: 1u32, y: 2 };
    let q = Point { x: 1.5f64, y: 2.5 };
    let k = 3;
    let r = apply(|a| a * k, 5) + apply(move |a| a + k, 1);
    let shapes: Vec<Box<dyn Shape>> = vec![Box::new(Square(2.0))];
    let a: f64 = shapes.iter().map(|s| s.area()).sum();
    println!("{} {} {} {} {} {} {}", p.sum(), q.sum(), r, a, Square(1.0), generic_len(&[1u8, 2]), generic_len(&["a"]));
}
