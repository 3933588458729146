// Names for the demangling agreement test: a class template's member in a namespace and a
// function template, each busy long enough to be sampled.
#include <cstdio>
#include <vector>

namespace geo {
template <typename T> struct Grid {
    std::vector<T> v;
    __attribute__((noinline)) T sum(int rounds) const {
        T s = 0;
        for (int r = 0; r < rounds; r++)
            for (auto x : v)
                s += x * 0.5;
        return s;
    }
};
}

template <typename T> __attribute__((noinline)) long tw(std::vector<T>& v) {
    long s = 0;
    for (int r = 0; r < 3000; r++)
        for (auto x : v)
            s ^= x + r;
    return s;
}

int main() {
    geo::Grid<double> g;
    g.v.assign(100000, 1.5);
    std::vector<int> w(100000, 3);
    double a = g.sum(1500);
    long b = tw(w);
    std::printf("%f %ld\n", a, b);
    return 0;
}
