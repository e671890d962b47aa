/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The third pass's first state (ina_tna.p4, INA_THIRD_PASS): the first two
 * passes' INA_TWO_PASS_ELEMENTS elements, one extract each, into `head`
 * (the second pass's) and then `passed` / `passed_hi`, included inside the
 * parser state passed_elements. The back end splits the state where one
 * parser cycle cannot hold them.
 */
#if INA_LANES > 0
        pkt.extract(hdr.head[0]);
#endif
#if INA_LANES > 1
        pkt.extract(hdr.head[1]);
#endif
#if INA_LANES > 2
        pkt.extract(hdr.head[2]);
#endif
#if INA_LANES > 3
        pkt.extract(hdr.head[3]);
#endif
#if INA_LANES > 4
        pkt.extract(hdr.head[4]);
#endif
#if INA_LANES > 5
        pkt.extract(hdr.head[5]);
#endif
#if INA_LANES > 6
        pkt.extract(hdr.head[6]);
#endif
#if INA_LANES > 7
        pkt.extract(hdr.head[7]);
#endif
#if INA_LANES > 8
        pkt.extract(hdr.head[8]);
#endif
#if INA_LANES > 9
        pkt.extract(hdr.head[9]);
#endif
#if INA_LANES > 10
        pkt.extract(hdr.head[10]);
#endif
#if INA_LANES > 11
        pkt.extract(hdr.head[11]);
#endif
#if INA_LANES > 12
        pkt.extract(hdr.head[12]);
#endif
#if INA_LANES > 13
        pkt.extract(hdr.head[13]);
#endif
#if INA_LANES > 14
        pkt.extract(hdr.head[14]);
#endif
#if INA_LANES > 15
        pkt.extract(hdr.head[15]);
#endif
#if INA_LANES > 16
        pkt.extract(hdr.head[16]);
#endif
#if INA_LANES > 17
        pkt.extract(hdr.head[17]);
#endif
#if INA_LANES > 18
        pkt.extract(hdr.head[18]);
#endif
#if INA_LANES > 19
        pkt.extract(hdr.head[19]);
#endif
#if INA_LANES > 20
        pkt.extract(hdr.head[20]);
#endif
#if INA_LANES > 21
        pkt.extract(hdr.head[21]);
#endif
#if INA_LANES > 22
        pkt.extract(hdr.head[22]);
#endif
#if INA_LANES > 23
        pkt.extract(hdr.head[23]);
#endif
#if INA_LANES > 24
        pkt.extract(hdr.head[24]);
#endif
#if INA_LANES > 25
        pkt.extract(hdr.head[25]);
#endif
#if INA_LANES > 26
        pkt.extract(hdr.head[26]);
#endif
#if INA_LANES > 27
        pkt.extract(hdr.head[27]);
#endif
#if INA_LANES > 28
        pkt.extract(hdr.head[28]);
#endif
#if INA_LANES > 29
        pkt.extract(hdr.head[29]);
#endif
#if INA_LANES > 30
        pkt.extract(hdr.head[30]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 0
        pkt.extract(hdr.passed[0]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 1
        pkt.extract(hdr.passed[1]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 2
        pkt.extract(hdr.passed[2]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 3
        pkt.extract(hdr.passed[3]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 4
        pkt.extract(hdr.passed[4]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 5
        pkt.extract(hdr.passed[5]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 6
        pkt.extract(hdr.passed[6]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 7
        pkt.extract(hdr.passed[7]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 8
        pkt.extract(hdr.passed[8]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 9
        pkt.extract(hdr.passed[9]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 10
        pkt.extract(hdr.passed[10]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 11
        pkt.extract(hdr.passed[11]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 12
        pkt.extract(hdr.passed[12]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 13
        pkt.extract(hdr.passed[13]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 14
        pkt.extract(hdr.passed[14]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 15
        pkt.extract(hdr.passed[15]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 16
        pkt.extract(hdr.passed[16]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 17
        pkt.extract(hdr.passed[17]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 18
        pkt.extract(hdr.passed[18]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 19
        pkt.extract(hdr.passed[19]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 20
        pkt.extract(hdr.passed[20]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 21
        pkt.extract(hdr.passed[21]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 22
        pkt.extract(hdr.passed[22]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 23
        pkt.extract(hdr.passed[23]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 24
        pkt.extract(hdr.passed[24]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 25
        pkt.extract(hdr.passed[25]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 26
        pkt.extract(hdr.passed[26]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 27
        pkt.extract(hdr.passed[27]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 28
        pkt.extract(hdr.passed[28]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 29
        pkt.extract(hdr.passed[29]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 30
        pkt.extract(hdr.passed[30]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 31
        pkt.extract(hdr.passed[31]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 32
        pkt.extract(hdr.passed_hi[0]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 33
        pkt.extract(hdr.passed_hi[1]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 34
        pkt.extract(hdr.passed_hi[2]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 35
        pkt.extract(hdr.passed_hi[3]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 36
        pkt.extract(hdr.passed_hi[4]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 37
        pkt.extract(hdr.passed_hi[5]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 38
        pkt.extract(hdr.passed_hi[6]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 39
        pkt.extract(hdr.passed_hi[7]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 40
        pkt.extract(hdr.passed_hi[8]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 41
        pkt.extract(hdr.passed_hi[9]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 42
        pkt.extract(hdr.passed_hi[10]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 43
        pkt.extract(hdr.passed_hi[11]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 44
        pkt.extract(hdr.passed_hi[12]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 45
        pkt.extract(hdr.passed_hi[13]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 46
        pkt.extract(hdr.passed_hi[14]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 47
        pkt.extract(hdr.passed_hi[15]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 48
        pkt.extract(hdr.passed_hi[16]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 49
        pkt.extract(hdr.passed_hi[17]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 50
        pkt.extract(hdr.passed_hi[18]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 51
        pkt.extract(hdr.passed_hi[19]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 52
        pkt.extract(hdr.passed_hi[20]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 53
        pkt.extract(hdr.passed_hi[21]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 54
        pkt.extract(hdr.passed_hi[22]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 55
        pkt.extract(hdr.passed_hi[23]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 56
        pkt.extract(hdr.passed_hi[24]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 57
        pkt.extract(hdr.passed_hi[25]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 58
        pkt.extract(hdr.passed_hi[26]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 59
        pkt.extract(hdr.passed_hi[27]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 60
        pkt.extract(hdr.passed_hi[28]);
#endif
#if INA_TWO_PASS_ELEMENTS - INA_LANES > 61
        pkt.extract(hdr.passed_hi[29]);
#endif
