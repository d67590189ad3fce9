// A sum of 70 rank-3 parameters: one fused kernel would take 0x13f0 bytes
// of parameters (sm_90 allows 0x1100), and its training step returns one
// gradient 70 times.
func.func @wide(%p0: tensor<2x3x4xf32> {echo.param}, %p1: tensor<2x3x4xf32> {echo.param}, %p2: tensor<2x3x4xf32> {echo.param}, %p3: tensor<2x3x4xf32> {echo.param}, %p4: tensor<2x3x4xf32> {echo.param}, %p5: tensor<2x3x4xf32> {echo.param}, %p6: tensor<2x3x4xf32> {echo.param}, %p7: tensor<2x3x4xf32> {echo.param}, %p8: tensor<2x3x4xf32> {echo.param}, %p9: tensor<2x3x4xf32> {echo.param}, %p10: tensor<2x3x4xf32> {echo.param}, %p11: tensor<2x3x4xf32> {echo.param}, %p12: tensor<2x3x4xf32> {echo.param}, %p13: tensor<2x3x4xf32> {echo.param}, %p14: tensor<2x3x4xf32> {echo.param}, %p15: tensor<2x3x4xf32> {echo.param}, %p16: tensor<2x3x4xf32> {echo.param}, %p17: tensor<2x3x4xf32> {echo.param}, %p18: tensor<2x3x4xf32> {echo.param}, %p19: tensor<2x3x4xf32> {echo.param}, %p20: tensor<2x3x4xf32> {echo.param}, %p21: tensor<2x3x4xf32> {echo.param}, %p22: tensor<2x3x4xf32> {echo.param}, %p23: tensor<2x3x4xf32> {echo.param}, %p24: tensor<2x3x4xf32> {echo.param}, %p25: tensor<2x3x4xf32> {echo.param}, %p26: tensor<2x3x4xf32> {echo.param}, %p27: tensor<2x3x4xf32> {echo.param}, %p28: tensor<2x3x4xf32> {echo.param}, %p29: tensor<2x3x4xf32> {echo.param}, %p30: tensor<2x3x4xf32> {echo.param}, %p31: tensor<2x3x4xf32> {echo.param}, %p32: tensor<2x3x4xf32> {echo.param}, %p33: tensor<2x3x4xf32> {echo.param}, %p34: tensor<2x3x4xf32> {echo.param}, %p35: tensor<2x3x4xf32> {echo.param}, %p36: tensor<2x3x4xf32> {echo.param}, %p37: tensor<2x3x4xf32> {echo.param}, %p38: tensor<2x3x4xf32> {echo.param}, %p39: tensor<2x3x4xf32> {echo.param}, %p40: tensor<2x3x4xf32> {echo.param}, %p41: tensor<2x3x4xf32> {echo.param}, %p42: tensor<2x3x4xf32> {echo.param}, %p43: tensor<2x3x4xf32> {echo.param}, %p44: tensor<2x3x4xf32> {echo.param}, %p45: tensor<2x3x4xf32> {echo.param}, %p46: tensor<2x3x4xf32> {echo.param}, %p47: tensor<2x3x4xf32> {echo.param}, %p48: tensor<2x3x4xf32> {echo.param}, %p49: tensor<2x3x4xf32> {echo.param}, %p50: tensor<2x3x4xf32> {echo.param}, %p51: tensor<2x3x4xf32> {echo.param}, %p52: tensor<2x3x4xf32> {echo.param}, %p53: tensor<2x3x4xf32> {echo.param}, %p54: tensor<2x3x4xf32> {echo.param}, %p55: tensor<2x3x4xf32> {echo.param}, %p56: tensor<2x3x4xf32> {echo.param}, %p57: tensor<2x3x4xf32> {echo.param}, %p58: tensor<2x3x4xf32> {echo.param}, %p59: tensor<2x3x4xf32> {echo.param}, %p60: tensor<2x3x4xf32> {echo.param}, %p61: tensor<2x3x4xf32> {echo.param}, %p62: tensor<2x3x4xf32> {echo.param}, %p63: tensor<2x3x4xf32> {echo.param}, %p64: tensor<2x3x4xf32> {echo.param}, %p65: tensor<2x3x4xf32> {echo.param}, %p66: tensor<2x3x4xf32> {echo.param}, %p67: tensor<2x3x4xf32> {echo.param}, %p68: tensor<2x3x4xf32> {echo.param}, %p69: tensor<2x3x4xf32> {echo.param}) -> tensor<f32> {
  %s1 = echo.add %p0, %p1 : tensor<2x3x4xf32>
  %s2 = echo.add %s1, %p2 : tensor<2x3x4xf32>
  %s3 = echo.add %s2, %p3 : tensor<2x3x4xf32>
  %s4 = echo.add %s3, %p4 : tensor<2x3x4xf32>
  %s5 = echo.add %s4, %p5 : tensor<2x3x4xf32>
  %s6 = echo.add %s5, %p6 : tensor<2x3x4xf32>
  %s7 = echo.add %s6, %p7 : tensor<2x3x4xf32>
  %s8 = echo.add %s7, %p8 : tensor<2x3x4xf32>
  %s9 = echo.add %s8, %p9 : tensor<2x3x4xf32>
  %s10 = echo.add %s9, %p10 : tensor<2x3x4xf32>
  %s11 = echo.add %s10, %p11 : tensor<2x3x4xf32>
  %s12 = echo.add %s11, %p12 : tensor<2x3x4xf32>
  %s13 = echo.add %s12, %p13 : tensor<2x3x4xf32>
  %s14 = echo.add %s13, %p14 : tensor<2x3x4xf32>
  %s15 = echo.add %s14, %p15 : tensor<2x3x4xf32>
  %s16 = echo.add %s15, %p16 : tensor<2x3x4xf32>
  %s17 = echo.add %s16, %p17 : tensor<2x3x4xf32>
  %s18 = echo.add %s17, %p18 : tensor<2x3x4xf32>
  %s19 = echo.add %s18, %p19 : tensor<2x3x4xf32>
  %s20 = echo.add %s19, %p20 : tensor<2x3x4xf32>
  %s21 = echo.add %s20, %p21 : tensor<2x3x4xf32>
  %s22 = echo.add %s21, %p22 : tensor<2x3x4xf32>
  %s23 = echo.add %s22, %p23 : tensor<2x3x4xf32>
  %s24 = echo.add %s23, %p24 : tensor<2x3x4xf32>
  %s25 = echo.add %s24, %p25 : tensor<2x3x4xf32>
  %s26 = echo.add %s25, %p26 : tensor<2x3x4xf32>
  %s27 = echo.add %s26, %p27 : tensor<2x3x4xf32>
  %s28 = echo.add %s27, %p28 : tensor<2x3x4xf32>
  %s29 = echo.add %s28, %p29 : tensor<2x3x4xf32>
  %s30 = echo.add %s29, %p30 : tensor<2x3x4xf32>
  %s31 = echo.add %s30, %p31 : tensor<2x3x4xf32>
  %s32 = echo.add %s31, %p32 : tensor<2x3x4xf32>
  %s33 = echo.add %s32, %p33 : tensor<2x3x4xf32>
  %s34 = echo.add %s33, %p34 : tensor<2x3x4xf32>
  %s35 = echo.add %s34, %p35 : tensor<2x3x4xf32>
  %s36 = echo.add %s35, %p36 : tensor<2x3x4xf32>
  %s37 = echo.add %s36, %p37 : tensor<2x3x4xf32>
  %s38 = echo.add %s37, %p38 : tensor<2x3x4xf32>
  %s39 = echo.add %s38, %p39 : tensor<2x3x4xf32>
  %s40 = echo.add %s39, %p40 : tensor<2x3x4xf32>
  %s41 = echo.add %s40, %p41 : tensor<2x3x4xf32>
  %s42 = echo.add %s41, %p42 : tensor<2x3x4xf32>
  %s43 = echo.add %s42, %p43 : tensor<2x3x4xf32>
  %s44 = echo.add %s43, %p44 : tensor<2x3x4xf32>
  %s45 = echo.add %s44, %p45 : tensor<2x3x4xf32>
  %s46 = echo.add %s45, %p46 : tensor<2x3x4xf32>
  %s47 = echo.add %s46, %p47 : tensor<2x3x4xf32>
  %s48 = echo.add %s47, %p48 : tensor<2x3x4xf32>
  %s49 = echo.add %s48, %p49 : tensor<2x3x4xf32>
  %s50 = echo.add %s49, %p50 : tensor<2x3x4xf32>
  %s51 = echo.add %s50, %p51 : tensor<2x3x4xf32>
  %s52 = echo.add %s51, %p52 : tensor<2x3x4xf32>
  %s53 = echo.add %s52, %p53 : tensor<2x3x4xf32>
  %s54 = echo.add %s53, %p54 : tensor<2x3x4xf32>
  %s55 = echo.add %s54, %p55 : tensor<2x3x4xf32>
  %s56 = echo.add %s55, %p56 : tensor<2x3x4xf32>
  %s57 = echo.add %s56, %p57 : tensor<2x3x4xf32>
  %s58 = echo.add %s57, %p58 : tensor<2x3x4xf32>
  %s59 = echo.add %s58, %p59 : tensor<2x3x4xf32>
  %s60 = echo.add %s59, %p60 : tensor<2x3x4xf32>
  %s61 = echo.add %s60, %p61 : tensor<2x3x4xf32>
  %s62 = echo.add %s61, %p62 : tensor<2x3x4xf32>
  %s63 = echo.add %s62, %p63 : tensor<2x3x4xf32>
  %s64 = echo.add %s63, %p64 : tensor<2x3x4xf32>
  %s65 = echo.add %s64, %p65 : tensor<2x3x4xf32>
  %s66 = echo.add %s65, %p66 : tensor<2x3x4xf32>
  %s67 = echo.add %s66, %p67 : tensor<2x3x4xf32>
  %s68 = echo.add %s67, %p68 : tensor<2x3x4xf32>
  %s69 = echo.add %s68, %p69 : tensor<2x3x4xf32>
  %t = echo.tanh %s69 : tensor<2x3x4xf32>
  %l = echo.reduce_sum %t dims = [0, 1, 2] : (tensor<2x3x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
