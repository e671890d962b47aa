/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The first pass's element states of the pair form (Tofino 2's default
 * layout; stages/aggregator_value_pair.p4), included inside
 * InaIngressParser: e<i> extracts element i (elems 0..31, elems_hi 32..)
 * and selects on the count, as the two-pass chain does, for all
 * 2 * INA_LANES elements. An odd count ends in pad<count>: a zero in the
 * word of the last lane's hi element, which stays invalid (never
 * deparsed), so that the lane's stateful ALU reads a known word.
 */
#if 2 * INA_LANES > 1
    state e0 {
        pkt.extract(hdr.elems[0]);
        transition select(hdr.ina.elem_count) { 1: pad1; default: e1; }
    }
#elif 2 * INA_LANES == 1
    state e0 {
        pkt.extract(hdr.elems[0]);
        transition pad1;
    }
#endif
#if 2 * INA_LANES > 1
    state pad1 {
        hdr.elems[1].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 2
    state e1 {
        pkt.extract(hdr.elems[1]);
        transition select(hdr.ina.elem_count) { 2: accept; default: e2; }
    }
#elif 2 * INA_LANES == 2
    state e1 {
        pkt.extract(hdr.elems[1]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 3
    state e2 {
        pkt.extract(hdr.elems[2]);
        transition select(hdr.ina.elem_count) { 3: pad3; default: e3; }
    }
#elif 2 * INA_LANES == 3
    state e2 {
        pkt.extract(hdr.elems[2]);
        transition pad3;
    }
#endif
#if 2 * INA_LANES > 3
    state pad3 {
        hdr.elems[3].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 4
    state e3 {
        pkt.extract(hdr.elems[3]);
        transition select(hdr.ina.elem_count) { 4: accept; default: e4; }
    }
#elif 2 * INA_LANES == 4
    state e3 {
        pkt.extract(hdr.elems[3]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 5
    state e4 {
        pkt.extract(hdr.elems[4]);
        transition select(hdr.ina.elem_count) { 5: pad5; default: e5; }
    }
#elif 2 * INA_LANES == 5
    state e4 {
        pkt.extract(hdr.elems[4]);
        transition pad5;
    }
#endif
#if 2 * INA_LANES > 5
    state pad5 {
        hdr.elems[5].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 6
    state e5 {
        pkt.extract(hdr.elems[5]);
        transition select(hdr.ina.elem_count) { 6: accept; default: e6; }
    }
#elif 2 * INA_LANES == 6
    state e5 {
        pkt.extract(hdr.elems[5]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 7
    state e6 {
        pkt.extract(hdr.elems[6]);
        transition select(hdr.ina.elem_count) { 7: pad7; default: e7; }
    }
#elif 2 * INA_LANES == 7
    state e6 {
        pkt.extract(hdr.elems[6]);
        transition pad7;
    }
#endif
#if 2 * INA_LANES > 7
    state pad7 {
        hdr.elems[7].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 8
    state e7 {
        pkt.extract(hdr.elems[7]);
        transition select(hdr.ina.elem_count) { 8: accept; default: e8; }
    }
#elif 2 * INA_LANES == 8
    state e7 {
        pkt.extract(hdr.elems[7]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 9
    state e8 {
        pkt.extract(hdr.elems[8]);
        transition select(hdr.ina.elem_count) { 9: pad9; default: e9; }
    }
#elif 2 * INA_LANES == 9
    state e8 {
        pkt.extract(hdr.elems[8]);
        transition pad9;
    }
#endif
#if 2 * INA_LANES > 9
    state pad9 {
        hdr.elems[9].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 10
    state e9 {
        pkt.extract(hdr.elems[9]);
        transition select(hdr.ina.elem_count) { 10: accept; default: e10; }
    }
#elif 2 * INA_LANES == 10
    state e9 {
        pkt.extract(hdr.elems[9]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 11
    state e10 {
        pkt.extract(hdr.elems[10]);
        transition select(hdr.ina.elem_count) { 11: pad11; default: e11; }
    }
#elif 2 * INA_LANES == 11
    state e10 {
        pkt.extract(hdr.elems[10]);
        transition pad11;
    }
#endif
#if 2 * INA_LANES > 11
    state pad11 {
        hdr.elems[11].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 12
    state e11 {
        pkt.extract(hdr.elems[11]);
        transition select(hdr.ina.elem_count) { 12: accept; default: e12; }
    }
#elif 2 * INA_LANES == 12
    state e11 {
        pkt.extract(hdr.elems[11]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 13
    state e12 {
        pkt.extract(hdr.elems[12]);
        transition select(hdr.ina.elem_count) { 13: pad13; default: e13; }
    }
#elif 2 * INA_LANES == 13
    state e12 {
        pkt.extract(hdr.elems[12]);
        transition pad13;
    }
#endif
#if 2 * INA_LANES > 13
    state pad13 {
        hdr.elems[13].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 14
    state e13 {
        pkt.extract(hdr.elems[13]);
        transition select(hdr.ina.elem_count) { 14: accept; default: e14; }
    }
#elif 2 * INA_LANES == 14
    state e13 {
        pkt.extract(hdr.elems[13]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 15
    state e14 {
        pkt.extract(hdr.elems[14]);
        transition select(hdr.ina.elem_count) { 15: pad15; default: e15; }
    }
#elif 2 * INA_LANES == 15
    state e14 {
        pkt.extract(hdr.elems[14]);
        transition pad15;
    }
#endif
#if 2 * INA_LANES > 15
    state pad15 {
        hdr.elems[15].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 16
    state e15 {
        pkt.extract(hdr.elems[15]);
        transition select(hdr.ina.elem_count) { 16: accept; default: e16; }
    }
#elif 2 * INA_LANES == 16
    state e15 {
        pkt.extract(hdr.elems[15]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 17
    state e16 {
        pkt.extract(hdr.elems[16]);
        transition select(hdr.ina.elem_count) { 17: pad17; default: e17; }
    }
#elif 2 * INA_LANES == 17
    state e16 {
        pkt.extract(hdr.elems[16]);
        transition pad17;
    }
#endif
#if 2 * INA_LANES > 17
    state pad17 {
        hdr.elems[17].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 18
    state e17 {
        pkt.extract(hdr.elems[17]);
        transition select(hdr.ina.elem_count) { 18: accept; default: e18; }
    }
#elif 2 * INA_LANES == 18
    state e17 {
        pkt.extract(hdr.elems[17]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 19
    state e18 {
        pkt.extract(hdr.elems[18]);
        transition select(hdr.ina.elem_count) { 19: pad19; default: e19; }
    }
#elif 2 * INA_LANES == 19
    state e18 {
        pkt.extract(hdr.elems[18]);
        transition pad19;
    }
#endif
#if 2 * INA_LANES > 19
    state pad19 {
        hdr.elems[19].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 20
    state e19 {
        pkt.extract(hdr.elems[19]);
        transition select(hdr.ina.elem_count) { 20: accept; default: e20; }
    }
#elif 2 * INA_LANES == 20
    state e19 {
        pkt.extract(hdr.elems[19]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 21
    state e20 {
        pkt.extract(hdr.elems[20]);
        transition select(hdr.ina.elem_count) { 21: pad21; default: e21; }
    }
#elif 2 * INA_LANES == 21
    state e20 {
        pkt.extract(hdr.elems[20]);
        transition pad21;
    }
#endif
#if 2 * INA_LANES > 21
    state pad21 {
        hdr.elems[21].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 22
    state e21 {
        pkt.extract(hdr.elems[21]);
        transition select(hdr.ina.elem_count) { 22: accept; default: e22; }
    }
#elif 2 * INA_LANES == 22
    state e21 {
        pkt.extract(hdr.elems[21]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 23
    state e22 {
        pkt.extract(hdr.elems[22]);
        transition select(hdr.ina.elem_count) { 23: pad23; default: e23; }
    }
#elif 2 * INA_LANES == 23
    state e22 {
        pkt.extract(hdr.elems[22]);
        transition pad23;
    }
#endif
#if 2 * INA_LANES > 23
    state pad23 {
        hdr.elems[23].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 24
    state e23 {
        pkt.extract(hdr.elems[23]);
        transition select(hdr.ina.elem_count) { 24: accept; default: e24; }
    }
#elif 2 * INA_LANES == 24
    state e23 {
        pkt.extract(hdr.elems[23]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 25
    state e24 {
        pkt.extract(hdr.elems[24]);
        transition select(hdr.ina.elem_count) { 25: pad25; default: e25; }
    }
#elif 2 * INA_LANES == 25
    state e24 {
        pkt.extract(hdr.elems[24]);
        transition pad25;
    }
#endif
#if 2 * INA_LANES > 25
    state pad25 {
        hdr.elems[25].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 26
    state e25 {
        pkt.extract(hdr.elems[25]);
        transition select(hdr.ina.elem_count) { 26: accept; default: e26; }
    }
#elif 2 * INA_LANES == 26
    state e25 {
        pkt.extract(hdr.elems[25]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 27
    state e26 {
        pkt.extract(hdr.elems[26]);
        transition select(hdr.ina.elem_count) { 27: pad27; default: e27; }
    }
#elif 2 * INA_LANES == 27
    state e26 {
        pkt.extract(hdr.elems[26]);
        transition pad27;
    }
#endif
#if 2 * INA_LANES > 27
    state pad27 {
        hdr.elems[27].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 28
    state e27 {
        pkt.extract(hdr.elems[27]);
        transition select(hdr.ina.elem_count) { 28: accept; default: e28; }
    }
#elif 2 * INA_LANES == 28
    state e27 {
        pkt.extract(hdr.elems[27]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 29
    state e28 {
        pkt.extract(hdr.elems[28]);
        transition select(hdr.ina.elem_count) { 29: pad29; default: e29; }
    }
#elif 2 * INA_LANES == 29
    state e28 {
        pkt.extract(hdr.elems[28]);
        transition pad29;
    }
#endif
#if 2 * INA_LANES > 29
    state pad29 {
        hdr.elems[29].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 30
    state e29 {
        pkt.extract(hdr.elems[29]);
        transition select(hdr.ina.elem_count) { 30: accept; default: e30; }
    }
#elif 2 * INA_LANES == 30
    state e29 {
        pkt.extract(hdr.elems[29]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 31
    state e30 {
        pkt.extract(hdr.elems[30]);
        transition select(hdr.ina.elem_count) { 31: pad31; default: e31; }
    }
#elif 2 * INA_LANES == 31
    state e30 {
        pkt.extract(hdr.elems[30]);
        transition pad31;
    }
#endif
#if 2 * INA_LANES > 31
    state pad31 {
        hdr.elems[31].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 32
    state e31 {
        pkt.extract(hdr.elems[31]);
        transition select(hdr.ina.elem_count) { 32: accept; default: e32; }
    }
#elif 2 * INA_LANES == 32
    state e31 {
        pkt.extract(hdr.elems[31]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 33
    state e32 {
        pkt.extract(hdr.elems_hi[0]);
        transition select(hdr.ina.elem_count) { 33: pad33; default: e33; }
    }
#elif 2 * INA_LANES == 33
    state e32 {
        pkt.extract(hdr.elems_hi[0]);
        transition pad33;
    }
#endif
#if 2 * INA_LANES > 33
    state pad33 {
        hdr.elems_hi[1].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 34
    state e33 {
        pkt.extract(hdr.elems_hi[1]);
        transition select(hdr.ina.elem_count) { 34: accept; default: e34; }
    }
#elif 2 * INA_LANES == 34
    state e33 {
        pkt.extract(hdr.elems_hi[1]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 35
    state e34 {
        pkt.extract(hdr.elems_hi[2]);
        transition select(hdr.ina.elem_count) { 35: pad35; default: e35; }
    }
#elif 2 * INA_LANES == 35
    state e34 {
        pkt.extract(hdr.elems_hi[2]);
        transition pad35;
    }
#endif
#if 2 * INA_LANES > 35
    state pad35 {
        hdr.elems_hi[3].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 36
    state e35 {
        pkt.extract(hdr.elems_hi[3]);
        transition select(hdr.ina.elem_count) { 36: accept; default: e36; }
    }
#elif 2 * INA_LANES == 36
    state e35 {
        pkt.extract(hdr.elems_hi[3]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 37
    state e36 {
        pkt.extract(hdr.elems_hi[4]);
        transition select(hdr.ina.elem_count) { 37: pad37; default: e37; }
    }
#elif 2 * INA_LANES == 37
    state e36 {
        pkt.extract(hdr.elems_hi[4]);
        transition pad37;
    }
#endif
#if 2 * INA_LANES > 37
    state pad37 {
        hdr.elems_hi[5].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 38
    state e37 {
        pkt.extract(hdr.elems_hi[5]);
        transition select(hdr.ina.elem_count) { 38: accept; default: e38; }
    }
#elif 2 * INA_LANES == 38
    state e37 {
        pkt.extract(hdr.elems_hi[5]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 39
    state e38 {
        pkt.extract(hdr.elems_hi[6]);
        transition select(hdr.ina.elem_count) { 39: pad39; default: e39; }
    }
#elif 2 * INA_LANES == 39
    state e38 {
        pkt.extract(hdr.elems_hi[6]);
        transition pad39;
    }
#endif
#if 2 * INA_LANES > 39
    state pad39 {
        hdr.elems_hi[7].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 40
    state e39 {
        pkt.extract(hdr.elems_hi[7]);
        transition select(hdr.ina.elem_count) { 40: accept; default: e40; }
    }
#elif 2 * INA_LANES == 40
    state e39 {
        pkt.extract(hdr.elems_hi[7]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 41
    state e40 {
        pkt.extract(hdr.elems_hi[8]);
        transition select(hdr.ina.elem_count) { 41: pad41; default: e41; }
    }
#elif 2 * INA_LANES == 41
    state e40 {
        pkt.extract(hdr.elems_hi[8]);
        transition pad41;
    }
#endif
#if 2 * INA_LANES > 41
    state pad41 {
        hdr.elems_hi[9].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 42
    state e41 {
        pkt.extract(hdr.elems_hi[9]);
        transition select(hdr.ina.elem_count) { 42: accept; default: e42; }
    }
#elif 2 * INA_LANES == 42
    state e41 {
        pkt.extract(hdr.elems_hi[9]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 43
    state e42 {
        pkt.extract(hdr.elems_hi[10]);
        transition select(hdr.ina.elem_count) { 43: pad43; default: e43; }
    }
#elif 2 * INA_LANES == 43
    state e42 {
        pkt.extract(hdr.elems_hi[10]);
        transition pad43;
    }
#endif
#if 2 * INA_LANES > 43
    state pad43 {
        hdr.elems_hi[11].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 44
    state e43 {
        pkt.extract(hdr.elems_hi[11]);
        transition select(hdr.ina.elem_count) { 44: accept; default: e44; }
    }
#elif 2 * INA_LANES == 44
    state e43 {
        pkt.extract(hdr.elems_hi[11]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 45
    state e44 {
        pkt.extract(hdr.elems_hi[12]);
        transition select(hdr.ina.elem_count) { 45: pad45; default: e45; }
    }
#elif 2 * INA_LANES == 45
    state e44 {
        pkt.extract(hdr.elems_hi[12]);
        transition pad45;
    }
#endif
#if 2 * INA_LANES > 45
    state pad45 {
        hdr.elems_hi[13].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 46
    state e45 {
        pkt.extract(hdr.elems_hi[13]);
        transition select(hdr.ina.elem_count) { 46: accept; default: e46; }
    }
#elif 2 * INA_LANES == 46
    state e45 {
        pkt.extract(hdr.elems_hi[13]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 47
    state e46 {
        pkt.extract(hdr.elems_hi[14]);
        transition select(hdr.ina.elem_count) { 47: pad47; default: e47; }
    }
#elif 2 * INA_LANES == 47
    state e46 {
        pkt.extract(hdr.elems_hi[14]);
        transition pad47;
    }
#endif
#if 2 * INA_LANES > 47
    state pad47 {
        hdr.elems_hi[15].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 48
    state e47 {
        pkt.extract(hdr.elems_hi[15]);
        transition select(hdr.ina.elem_count) { 48: accept; default: e48; }
    }
#elif 2 * INA_LANES == 48
    state e47 {
        pkt.extract(hdr.elems_hi[15]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 49
    state e48 {
        pkt.extract(hdr.elems_hi[16]);
        transition select(hdr.ina.elem_count) { 49: pad49; default: e49; }
    }
#elif 2 * INA_LANES == 49
    state e48 {
        pkt.extract(hdr.elems_hi[16]);
        transition pad49;
    }
#endif
#if 2 * INA_LANES > 49
    state pad49 {
        hdr.elems_hi[17].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 50
    state e49 {
        pkt.extract(hdr.elems_hi[17]);
        transition select(hdr.ina.elem_count) { 50: accept; default: e50; }
    }
#elif 2 * INA_LANES == 50
    state e49 {
        pkt.extract(hdr.elems_hi[17]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 51
    state e50 {
        pkt.extract(hdr.elems_hi[18]);
        transition select(hdr.ina.elem_count) { 51: pad51; default: e51; }
    }
#elif 2 * INA_LANES == 51
    state e50 {
        pkt.extract(hdr.elems_hi[18]);
        transition pad51;
    }
#endif
#if 2 * INA_LANES > 51
    state pad51 {
        hdr.elems_hi[19].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 52
    state e51 {
        pkt.extract(hdr.elems_hi[19]);
        transition select(hdr.ina.elem_count) { 52: accept; default: e52; }
    }
#elif 2 * INA_LANES == 52
    state e51 {
        pkt.extract(hdr.elems_hi[19]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 53
    state e52 {
        pkt.extract(hdr.elems_hi[20]);
        transition select(hdr.ina.elem_count) { 53: pad53; default: e53; }
    }
#elif 2 * INA_LANES == 53
    state e52 {
        pkt.extract(hdr.elems_hi[20]);
        transition pad53;
    }
#endif
#if 2 * INA_LANES > 53
    state pad53 {
        hdr.elems_hi[21].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 54
    state e53 {
        pkt.extract(hdr.elems_hi[21]);
        transition select(hdr.ina.elem_count) { 54: accept; default: e54; }
    }
#elif 2 * INA_LANES == 54
    state e53 {
        pkt.extract(hdr.elems_hi[21]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 55
    state e54 {
        pkt.extract(hdr.elems_hi[22]);
        transition select(hdr.ina.elem_count) { 55: pad55; default: e55; }
    }
#elif 2 * INA_LANES == 55
    state e54 {
        pkt.extract(hdr.elems_hi[22]);
        transition pad55;
    }
#endif
#if 2 * INA_LANES > 55
    state pad55 {
        hdr.elems_hi[23].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 56
    state e55 {
        pkt.extract(hdr.elems_hi[23]);
        transition select(hdr.ina.elem_count) { 56: accept; default: e56; }
    }
#elif 2 * INA_LANES == 56
    state e55 {
        pkt.extract(hdr.elems_hi[23]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 57
    state e56 {
        pkt.extract(hdr.elems_hi[24]);
        transition select(hdr.ina.elem_count) { 57: pad57; default: e57; }
    }
#elif 2 * INA_LANES == 57
    state e56 {
        pkt.extract(hdr.elems_hi[24]);
        transition pad57;
    }
#endif
#if 2 * INA_LANES > 57
    state pad57 {
        hdr.elems_hi[25].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 58
    state e57 {
        pkt.extract(hdr.elems_hi[25]);
        transition select(hdr.ina.elem_count) { 58: accept; default: e58; }
    }
#elif 2 * INA_LANES == 58
    state e57 {
        pkt.extract(hdr.elems_hi[25]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 59
    state e58 {
        pkt.extract(hdr.elems_hi[26]);
        transition select(hdr.ina.elem_count) { 59: pad59; default: e59; }
    }
#elif 2 * INA_LANES == 59
    state e58 {
        pkt.extract(hdr.elems_hi[26]);
        transition pad59;
    }
#endif
#if 2 * INA_LANES > 59
    state pad59 {
        hdr.elems_hi[27].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 60
    state e59 {
        pkt.extract(hdr.elems_hi[27]);
        transition select(hdr.ina.elem_count) { 60: accept; default: e60; }
    }
#elif 2 * INA_LANES == 60
    state e59 {
        pkt.extract(hdr.elems_hi[27]);
        transition accept;
    }
#endif
#if 2 * INA_LANES > 61
    state e60 {
        pkt.extract(hdr.elems_hi[28]);
        transition select(hdr.ina.elem_count) { 61: pad61; default: e61; }
    }
#elif 2 * INA_LANES == 61
    state e60 {
        pkt.extract(hdr.elems_hi[28]);
        transition pad61;
    }
#endif
#if 2 * INA_LANES > 61
    state pad61 {
        hdr.elems_hi[29].v = 0;
        transition accept;
    }
#endif
#if 2 * INA_LANES > 62
    state e61 {
        pkt.extract(hdr.elems_hi[29]);
        transition select(hdr.ina.elem_count) { 62: accept; default: e62; }
    }
#elif 2 * INA_LANES == 62
    state e61 {
        pkt.extract(hdr.elems_hi[29]);
        transition accept;
    }
#endif
