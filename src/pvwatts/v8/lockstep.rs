//! The maximum power points of many records, searched several records at a time in lockstep.
//!
//! One record's search (`singlediode`) is a chain of about a hundred steps, each waiting for the
//! previous one's exponential and divisions, so one record at a time leaves most of the CPU idle.
//! Here each of `LANES` lanes holds one record's search as a resumable state machine, and every
//! round advances each lane by one step (one bisection step or one Newton step): the lanes'
//! chains are independent, so the CPU overlaps them. Every lane does exactly the arithmetic of
//! `CecModule::max_power` in the same order (the same helper functions), so each record's power
//! is the serial search's to the last bit; only the interleaving differs.

use super::singlediode::{
    makes_power, parabolic_step, CecModule, Diode, CURRENT_TOLERANCE, GOLDEN_C, GOLDEN_EXPANSION,
    GOLDEN_R, MAX_CURRENT_ITERATIONS, MAX_SEARCH_ITERATIONS, MAX_VOLTAGE_ITERATIONS,
    SEARCH_TOLERANCE, VOLTAGE_TOLERANCE,
};

/// Records searched at once. Four independent chains cover the latency of an exponential and a
/// division on current cores; more lanes add bookkeeping without overlapping more.
const LANES: usize = 4;

/// The value a search waits for next.
#[derive(Clone, Copy, Debug)]
enum Request {
    /// The current of the open-circuit bisection's step at its present voltage.
    OpenCircuitCurrent,
    /// Minus the power at this voltage (its current by Newton's method).
    NegativePower(f64),
}

/// What a search does after it is given a value.
enum Next {
    Ask(Request),
    /// The maximum power (W), or `None` when the search failed.
    Done(Option<f64>),
}

/// Where a search waits: each stage names the value it is waiting for.
#[derive(Clone, Copy, Debug)]
enum Stage {
    /// The current at `voltage` in the open-circuit bisection.
    OpenCircuit,
    /// f(a), f(b) and f(c) of the first bracket.
    BracketA,
    BracketB,
    BracketC,
    /// f(u) of a parabolic step between b and c.
    BracketInside,
    /// f(u) of a parabolic step beyond c, up to the limit.
    BracketBeyond,
    /// f(u) of the point the bracket moves on to.
    BracketShift,
    /// f(x1) and f(x2) of the first golden-section points.
    GoldenFirst,
    GoldenSecond,
    /// The new f(x2) after a step to the right, the new f(x1) after a step to the left.
    GoldenRight,
    GoldenLeft,
}

/// One record's search for the maximum power point (SSC `maxpower_5par`): the open-circuit
/// bisection of `Diode::open_circuit_voltage`, then `bracket_minimum` and
/// `golden_section_minimum` on [0, V_oc], with their variables under their names there.
#[derive(Clone, Copy, Debug)]
struct Search {
    stage: Stage,
    low: f64,
    high: f64,
    voltage: f64,
    steps: usize,
    open_circuit: f64,
    a: f64,
    b: f64,
    c: f64,
    u: f64,
    fa: f64,
    fb: f64,
    fc: f64,
    x0: f64,
    x1: f64,
    x2: f64,
    x3: f64,
    f1: f64,
    f2: f64,
}

impl Search {
    /// A search whose open-circuit bisection starts at `reference_voc` on [0, 1.5 `reference_voc`].
    fn start(reference_voc: f64) -> (Search, Next) {
        let mut search = Search {
            stage: Stage::OpenCircuit,
            low: 0.0,
            high: reference_voc * 1.5,
            voltage: reference_voc,
            steps: 0,
            open_circuit: 0.0,
            a: 0.0,
            b: 0.0,
            c: 0.0,
            u: 0.0,
            fa: 0.0,
            fb: 0.0,
            fc: 0.0,
            x0: 0.0,
            x1: 0.0,
            x2: 0.0,
            x3: 0.0,
            f1: 0.0,
            f2: 0.0,
        };
        let next = search.open_circuit_loop();
        (search, next)
    }

    fn ask(&mut self, stage: Stage, voltage: f64) -> Next {
        self.stage = stage;
        Next::Ask(Request::NegativePower(voltage))
    }

    /// The bisection's loop test: another step, or the bracket search from the voltage found.
    fn open_circuit_loop(&mut self) -> Next {
        if (self.high - self.low).abs() > VOLTAGE_TOLERANCE {
            self.stage = Stage::OpenCircuit;
            Next::Ask(Request::OpenCircuitCurrent)
        } else {
            self.start_bracket(self.voltage)
        }
    }

    fn start_bracket(&mut self, open_circuit: f64) -> Next {
        self.open_circuit = open_circuit;
        self.a = 0.0;
        self.b = open_circuit;
        self.ask(Stage::BracketA, self.a)
    }

    /// Continue with the value asked for.
    fn resume(&mut self, value: f64) -> Next {
        match self.stage {
            Stage::OpenCircuit => {
                if value < 0.0 {
                    self.high = self.voltage;
                }
                if value > 0.0 {
                    self.low = self.voltage;
                }
                self.voltage = (self.high + self.low) / 2.0;
                self.steps += 1;
                if self.steps > MAX_VOLTAGE_ITERATIONS {
                    return self.start_bracket(-1.0);
                }
                self.open_circuit_loop()
            }
            Stage::BracketA => {
                self.fa = value;
                self.ask(Stage::BracketB, self.b)
            }
            Stage::BracketB => {
                self.fb = value;
                if self.fb > self.fa {
                    std::mem::swap(&mut self.a, &mut self.b);
                    std::mem::swap(&mut self.fa, &mut self.fb);
                }
                self.c = self.b + GOLDEN_EXPANSION * (self.b - self.a);
                self.ask(Stage::BracketC, self.c)
            }
            Stage::BracketC => {
                self.fc = value;
                self.bracket_loop()
            }
            Stage::BracketInside => {
                let fu = value;
                if fu < self.fc {
                    return self.start_golden(self.b, self.u, self.c);
                } else if fu > self.fb {
                    return self.start_golden(self.a, self.b, self.u);
                }
                self.u = self.c + GOLDEN_EXPANSION * (self.c - self.b);
                self.ask(Stage::BracketShift, self.u)
            }
            Stage::BracketBeyond => {
                let fu = value;
                if fu < self.fc {
                    self.b = self.c;
                    self.c = self.u;
                    self.u = self.c + GOLDEN_EXPANSION * (self.c - self.b);
                    self.fb = self.fc;
                    self.fc = fu;
                    return self.ask(Stage::BracketShift, self.u);
                }
                self.shift(fu)
            }
            Stage::BracketShift => self.shift(value),
            Stage::GoldenFirst => {
                self.f1 = value;
                self.ask(Stage::GoldenSecond, self.x2)
            }
            Stage::GoldenSecond => {
                self.f2 = value;
                self.golden_loop()
            }
            Stage::GoldenRight => {
                self.f2 = value;
                self.count_golden_step()
            }
            Stage::GoldenLeft => {
                self.f1 = value;
                self.count_golden_step()
            }
        }
    }

    /// The end of a bracket step: the bracket moves on to (b, c, u).
    fn shift(&mut self, fu: f64) -> Next {
        self.a = self.b;
        self.b = self.c;
        self.c = self.u;
        self.fa = self.fb;
        self.fb = self.fc;
        self.fc = fu;
        self.bracket_loop()
    }

    /// The bracket's loop: walk on while f falls, or start the golden section on the bracket.
    fn bracket_loop(&mut self) -> Next {
        let (a, b, c) = (self.a, self.b, self.c);
        if self.fb <= self.fc || self.fb.is_nan() || self.fc.is_nan() {
            return self.start_golden(a, b, c);
        }
        let (u, limit) = parabolic_step(a, b, c, self.fa, self.fb, self.fc);
        if (b - u) * (u - c) > 0.0 {
            self.u = u;
            self.ask(Stage::BracketInside, u)
        } else if (c - u) * (u - limit) > 0.0 {
            self.u = u;
            self.ask(Stage::BracketBeyond, u)
        } else if (u - limit) * (limit - c) >= 0.0 {
            self.u = limit;
            self.ask(Stage::BracketShift, limit)
        } else {
            self.u = c + GOLDEN_EXPANSION * (c - b);
            self.ask(Stage::BracketShift, self.u)
        }
    }

    /// The golden section on the bracket (a, b, c), its first two points pulled into
    /// [0, V_oc].
    fn start_golden(&mut self, mut a: f64, mut b: f64, c: f64) -> Next {
        let (low, high) = (0.0, self.open_circuit);
        if a < low {
            a = low;
        }
        if a > high {
            a = high;
        }
        if b < low {
            b = low;
        }
        if b > high {
            b = high;
        }
        self.x0 = a;
        self.x3 = c;
        (self.x1, self.x2) = if (c - b).abs() > (b - a).abs() {
            (b, b + GOLDEN_C * (c - b))
        } else {
            (b - GOLDEN_C * (b - a), b)
        };
        self.steps = 0;
        self.ask(Stage::GoldenFirst, self.x1)
    }

    fn count_golden_step(&mut self) -> Next {
        let exceeded = self.steps > MAX_SEARCH_ITERATIONS;
        self.steps += 1;
        if exceeded {
            return Next::Done(None);
        }
        self.golden_loop()
    }

    /// The golden section's loop: narrow on the lower side, or end with the lower value.
    fn golden_loop(&mut self) -> Next {
        if (self.x3 - self.x0).abs() > SEARCH_TOLERANCE * (self.x1.abs() + self.x2.abs()) {
            if self.f2 < self.f1 {
                self.x0 = self.x1;
                self.x1 = self.x2;
                self.x2 = GOLDEN_R * self.x1 + GOLDEN_C * self.x3;
                self.f1 = self.f2;
                self.ask(Stage::GoldenRight, self.x2)
            } else {
                self.x3 = self.x2;
                self.x2 = self.x1;
                self.x1 = GOLDEN_R * self.x2 + GOLDEN_C * self.x0;
                self.f2 = self.f1;
                self.ask(Stage::GoldenLeft, self.x1)
            }
        } else {
            let negative_power = if self.f1 < self.f2 { self.f1 } else { self.f2 };
            let power = -negative_power;
            Next::Done((power >= 0.0).then_some(power))
        }
    }
}

/// Newton's method for the current at `voltage` (`Diode::current`), one step at a time.
#[derive(Clone, Copy, Debug)]
struct Newton {
    voltage: f64,
    previous: f64,
    current: f64,
    steps: usize,
}

/// One record in a lane: its index, diode, search and the Newton solve under way.
#[derive(Clone, Copy, Debug)]
struct Lane {
    record: usize,
    diode: Diode,
    search: Search,
    newton: Newton,
    /// Whether `newton` is what the search waits for (else one bisection step at `search.voltage`).
    solving: bool,
}

impl Lane {
    /// The lane of `record`; `Err` with the result when the search ends without asking anything.
    fn start(record: usize, diode: Diode, reference_voc: f64) -> Result<Lane, Option<f64>> {
        let (search, next) = Search::start(reference_voc);
        let mut lane = Lane {
            record,
            diode,
            search,
            newton: Newton {
                voltage: 0.0,
                previous: 0.0,
                current: 0.0,
                steps: 0,
            },
            solving: false,
        };
        match lane.follow(next) {
            None => Ok(lane),
            Some(result) => Err(result),
        }
    }

    /// Set up what `next` asks for, answering at once what needs no step (a Newton solve that
    /// starts converged); the result when the search ends.
    fn follow(&mut self, mut next: Next) -> Option<Option<f64>> {
        loop {
            match next {
                Next::Done(result) => return Some(result),
                Next::Ask(Request::OpenCircuitCurrent) => {
                    self.solving = false;
                    return None;
                }
                Next::Ask(Request::NegativePower(voltage)) => {
                    let current = 0.9 * self.diode.light_current;
                    if (current - 0.0f64).abs() > CURRENT_TOLERANCE {
                        self.newton = Newton {
                            voltage,
                            previous: 0.0,
                            current,
                            steps: 0,
                        };
                        self.solving = true;
                        return None;
                    }
                    next = self.search.resume(-voltage * current);
                }
            }
        }
    }

    /// One step of what the search waits for; the result when the search ends.
    #[inline]
    fn step(&mut self) -> Option<Option<f64>> {
        if self.solving {
            let newton = &mut self.newton;
            newton.previous = newton.current;
            newton.current = self.diode.newton_step(newton.voltage, newton.previous);
            let current = if newton.steps == MAX_CURRENT_ITERATIONS {
                -1.0
            } else {
                newton.steps += 1;
                if (newton.current - newton.previous).abs() > CURRENT_TOLERANCE {
                    return None;
                }
                newton.current
            };
            let next = self.search.resume(-newton.voltage * current);
            self.follow(next)
        } else {
            let current = self
                .diode
                .current_without_series_resistance(self.search.voltage);
            let next = self.search.resume(current);
            self.follow(next)
        }
    }
}

/// `module.max_power(irradiance, cell_c)` of every (irradiance W/m², cell temperature °C) pair,
/// in order, searched `LANES` records at a time.
pub fn max_powers(module: &CecModule, conditions: &[(f64, f64)]) -> Vec<Option<f64>> {
    let mut powers = vec![Some(0.0); conditions.len()];
    let mut waiting = conditions
        .iter()
        .enumerate()
        .filter(|(_, &(irradiance, _))| makes_power(irradiance));
    let mut lanes: [Option<Lane>; LANES] = [None; LANES];
    loop {
        let mut busy = false;
        for slot in lanes.iter_mut() {
            while slot.is_none() {
                let Some((record, &(irradiance, cell_c))) = waiting.next() else {
                    break;
                };
                match Lane::start(record, module.diode(irradiance, cell_c), module.voc) {
                    Ok(lane) => *slot = Some(lane),
                    Err(result) => powers[record] = result,
                }
            }
            busy |= slot.is_some();
        }
        if !busy {
            return powers;
        }
        for slot in lanes.iter_mut() {
            if let Some(lane) = slot {
                if let Some(result) = lane.step() {
                    powers[lane.record] = result;
                    *slot = None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pvwatts::params::ModuleType;

    #[test]
    fn lockstep_powers_are_the_serial_searches_bit_for_bit() {
        let mut conditions = Vec::new();
        for step in 0..700 {
            let irradiance = [0.0, 0.5, 1.0, 1.2, 3.0, 40.0, 180.0, 420.0, 777.7, 1000.0, 1250.0, f64::NAN][step % 12]
                + f64::from(step as u32) * 0.37;
            let cell_c = -25.0 + f64::from((step * 7 % 100) as u32);
            conditions.push((irradiance, cell_c));
        }
        for module_type in [ModuleType::Standard, ModuleType::Premium, ModuleType::ThinFilm] {
            let module = CecModule::for_type(module_type);
            for count in [0, 1, 3, 4, 5, conditions.len()] {
                let serial: Vec<Option<u64>> = conditions[..count]
                    .iter()
                    .map(|&(irradiance, cell_c)| module.max_power(irradiance, cell_c).map(f64::to_bits))
                    .collect();
                let lockstep: Vec<Option<u64>> = max_powers(&module, &conditions[..count])
                    .into_iter()
                    .map(|power| power.map(f64::to_bits))
                    .collect();
                assert_eq!(lockstep, serial, "{module_type:?}, {count} records");
            }
        }
    }
}
